package config

import (
	"errors"
	"fmt"
	"os"

	"github.com/joshbot/joshbot/joshbot/internal/configmigrate"
)

// upgrade brings data (the file named name) to the target schema_version
// with steps (see [configmigrate.Upgrade]). A file that cannot be
// upgraded is a fatal error: defaults must never stand in for it.
func upgrade(name string, data []byte, target int, steps map[int]configmigrate.Step) ([]byte, error) {
	out, _, err := configmigrate.Upgrade(data, target, steps)
	if err != nil {
		return nil, fatal(fmt.Errorf("config %s: %w", name, err))
	}
	return out, nil
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
