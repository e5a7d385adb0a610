package configmigrate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Step upgrades a config document from one schema_version to the
// next. It edits the top-level keys of doc in place; the caller sets the
// new schema_version.
type Step func(doc map[string]json.RawMessage) error

// Steps holds the upgrade steps of the config layout: Steps[v] turns a
// version v file into version v+1. Version 1 is the first layout, so
// there is no step yet; a change that renames or reshapes a key bumps
// config.SchemaVersion and adds its step here, with a test of its own.
// It is nil while there is no step: an empty map literal would cost the
// package init code (reading and ranging over a nil map work the same).
var Steps map[int]Step

// Upgrade upgrades data to the target schema_version by applying steps in
// order, one version at a time, and returns the document to decode and
// the version it was written with. A file already at target (the usual
// case) is returned as it is, so error positions still point into the
// file. Files a migration cannot start from (unparseable, without a
// schema_version, or newer than target) are also returned untouched:
// decoding and config.Config.Validate report those with the file's own
// positions and wording. The version of a file that does not parse is 0,
// or the schema_version it names when that is target or newer.
func Upgrade(data []byte, target int, steps map[int]Step) ([]byte, int, error) {
	if v, ok := topVersion(data); ok && v >= target {
		// The usual case, without decoding the file twice: whatever the
		// rest of it holds, it is returned as it is.
		return data, v, nil
	}
	var head struct {
		SchemaVersion int `json:"schema_version"`
	}
	if json.Unmarshal(data, &head) != nil {
		return data, 0, nil
	}
	from := head.SchemaVersion
	if from < 1 || from >= target {
		return data, from, nil
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		return data, from, nil
	}
	for v := from; v < target; v++ {
		step, ok := steps[v]
		if !ok {
			return nil, from, fmt.Errorf("schema_version %d cannot be upgraded: this build has no migration from version %d to %d", from, v, v+1)
		}
		if err := step(doc); err != nil {
			return nil, from, fmt.Errorf("upgrading schema_version %d to %d: %w", v, v+1, err)
		}
		doc["schema_version"] = json.RawMessage(fmt.Sprint(v + 1))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, from, fmt.Errorf("re-encoding the upgraded config: %w", err)
	}
	return buf.Bytes(), from, nil
}

// topVersion finds the schema_version of data, a JSON object, without
// decoding it: the value of the last top-level key encoding/json would
// store in a field tagged schema_version (it matches keys in any letter
// case). It reports false whenever it cannot tell as encoding/json would:
// a key with an escape or a non-ASCII letter, a value that is not a plain
// non-negative integer, anything but an object. It does not check the
// rest of the document: a file at or past the target version is returned
// as it is either way.
func topVersion(data []byte) (int, bool) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return 0, false
	}
	i++
	version, found := 0, false
	for {
		i = skipSpace(data, i)
		if i < len(data) && data[i] == '}' && !found {
			return 0, false
		}
		if i >= len(data) || data[i] != '"' {
			return 0, false
		}
		end := i + 1
		for end < len(data) && data[end] != '"' {
			if data[end] == '\\' || data[end] >= 0x80 {
				return 0, false
			}
			end++
		}
		if end >= len(data) {
			return 0, false
		}
		key := string(data[i+1 : end])
		i = skipSpace(data, end+1)
		if i >= len(data) || data[i] != ':' {
			return 0, false
		}
		i = skipSpace(data, i+1)
		next, ok := skipValue(data, i)
		if !ok {
			return 0, false
		}
		if strings.EqualFold(key, "schema_version") {
			v, err := strconv.Atoi(string(data[i:next]))
			if err != nil || data[i] < '0' || data[i] > '9' {
				return 0, false
			}
			version, found = v, true
		}
		i = skipSpace(data, next)
		if i < len(data) && data[i] == ',' {
			i++
			continue
		}
		if i < len(data) && data[i] == '}' && found {
			return version, true
		}
		return 0, false
	}
}

// skipSpace returns the index of the first byte at or after i that is
// not JSON white space.
func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the index just past the JSON value starting at i;
// false when it ends before the value does.
func skipValue(data []byte, i int) (int, bool) {
	depth := 0
	for i < len(data) {
		switch c := data[i]; c {
		case '"':
			i++
			for i < len(data) && data[i] != '"' {
				if data[i] == '\\' {
					i++
				}
				i++
			}
			if i >= len(data) {
				return 0, false
			}
			i++
		case '{', '[':
			depth++
			i++
		case '}', ']':
			if depth == 0 {
				return i, true
			}
			depth--
			i++
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return i, true
			}
			i++
		default:
			i++
		}
		if depth == 0 && i > 0 && (data[i-1] == '"' || data[i-1] == '}' || data[i-1] == ']') {
			return i, true
		}
	}
	return 0, false
}
