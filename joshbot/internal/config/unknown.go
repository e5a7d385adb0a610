package config

import (
	"encoding/json"
	"github.com/joshbot/joshbot/joshbot/internal/jsonkeys"
	"reflect"
)

// unknownKey finds, in data (a config file's JSON), the first key that no
// field of [Config] decodes, and returns its dotted path and the known key
// at the same level closest in spelling ("" when none is close). ok is
// false when every key is known.
func unknownKey(data []byte) (path, suggest string, ok bool) {
	var doc any
	if json.Unmarshal(data, &doc) != nil {
		return "", "", false
	}
	return jsonkeys.Unknown(doc, reflect.TypeFor[Config]())
}
