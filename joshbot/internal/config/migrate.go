package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// migration upgrades a config document from one schema_version to the
// next. It edits the top-level keys of doc in place; the caller sets the
// new schema_version.
type migration func(doc map[string]json.RawMessage) error

// migrations holds the upgrade steps of the config layout: migrations[v]
// turns a version v file into version v+1. Version 1 is the first layout,
// so there is no step yet; a change that renames or reshapes a key bumps
// [SchemaVersion] and adds its step here, with a test of its own.
var migrations = map[int]migration{}

// migrate upgrades data to the target schema_version by applying steps in
// order, one version at a time, and returns the document to decode and
// the version it was written with. A file already at target (the usual
// case) is returned as it is, so error positions still point into the
// file. Files a migration cannot start from (unparseable, without a
// schema_version, or newer than target) are also returned untouched:
// decoding and [Config.Validate] report those with the file's own
// positions and wording.
func migrate(data []byte, target int, steps map[int]migration) ([]byte, int, error) {
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
			return nil, from, fatal(fmt.Errorf("schema_version %d cannot be upgraded: this build has no migration from version %d to %d", from, v, v+1))
		}
		if err := step(doc); err != nil {
			return nil, from, fatal(fmt.Errorf("upgrading schema_version %d to %d: %w", v, v+1, err))
		}
		doc["schema_version"] = json.RawMessage(fmt.Sprint(v + 1))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, from, fatal(fmt.Errorf("re-encoding the upgraded config: %w", err))
	}
	return buf.Bytes(), from, nil
}

// ValidationError is an ordinary config mistake: a value out of its range
// or an unknown key. A long-running daemon may start on defaults after one
// (see [LoadLenient]); every other load error stops it.
type ValidationError struct{ Err error }

// Error returns the wrapped error's message.
func (e *ValidationError) Error() string { return e.Err.Error() }

// Unwrap returns the wrapped error.
func (e *ValidationError) Unwrap() error { return e.Err }

// ordinary marks err as a [ValidationError].
func ordinary(err error) error {
	if err == nil {
		return nil
	}
	return &ValidationError{Err: err}
}

// fatalError marks an error that must never be papered over with
// defaults, even inside a wrapper that would otherwise look ordinary.
type fatalError struct{ err error }

func (e *fatalError) Error() string { return e.err.Error() }
func (e *fatalError) Unwrap() error { return e.err }

func fatal(err error) error {
	if err == nil {
		return nil
	}
	return &fatalError{err: err}
}

// IsOrdinary reports whether err is an ordinary validation failure that
// [LoadLenient] may replace with defaults. Anything else is fatal: a bad
// duration or URL, a profile holding a key, a credential setting that
// does not resolve, an unreadable or newer file. Unknown kinds of error are
// fatal too, so a new check fails closed until someone decides otherwise.
func IsOrdinary(err error) bool {
	var f *fatalError
	if errors.As(err, &f) {
		return false
	}
	var v *ValidationError
	return errors.As(err, &v)
}

// LoadLenient is [LoadWith] for the daemons (gateway, serve), which should
// come up rather than stay down over a value out of range. When the file
// has only an ordinary validation failure it returns [Defaults] with the
// environment overrides applied, and the failure as fellBack for the
// caller to log; a fatal failure is returned as err and nothing starts.
// `joshbot preflight` and the interactive commands stay strict.
func LoadLenient(path string, opts *LoadOptions) (cfg *Config, fellBack, err error) {
	cfg, err = LoadWith(path, opts)
	if err == nil || !IsOrdinary(err) {
		return cfg, nil, err
	}
	def := Defaults()
	if eerr := ApplyEnv(def, os.Environ()); eerr != nil {
		return nil, nil, eerr
	}
	def.RegisterSecrets()
	if verr := def.Validate(); verr != nil {
		return nil, nil, fmt.Errorf("config %s unusable (%v), and the defaults with the environment's overrides are too: %w", path, err, verr)
	}
	return def, err, nil
}
