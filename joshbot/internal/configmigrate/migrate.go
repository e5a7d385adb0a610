package configmigrate

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Step upgrades a config document from one schema_version to the
// next. It edits the top-level keys of doc in place; the caller sets the
// new schema_version.
type Step func(doc map[string]json.RawMessage) error

// Steps holds the upgrade steps of the config layout: Steps[v] turns a
// version v file into version v+1. Version 1 is the first layout, so
// there is no step yet; a change that renames or reshapes a key bumps
// config.SchemaVersion and adds its step here, with a test of its own.
var Steps = map[int]Step{}

// Upgrade upgrades data to the target schema_version by applying steps in
// order, one version at a time, and returns the document to decode and
// the version it was written with. A file already at target (the usual
// case) is returned as it is, so error positions still point into the
// file. Files a migration cannot start from (unparseable, without a
// schema_version, or newer than target) are also returned untouched:
// decoding and config.Config.Validate report those with the file's own
// positions and wording.
func Upgrade(data []byte, target int, steps map[int]Step) ([]byte, int, error) {
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
