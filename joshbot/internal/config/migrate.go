package config

import (
	"errors"

	"github.com/joshbot/joshbot/joshbot/internal/configmigrate"
)

// upgrade brings data (the file named name) to the target schema_version
// with steps (see [configmigrate.Upgrade]). A file that cannot be
// upgraded is a fatal error.
func upgrade(name string, data []byte, target int, steps map[int]configmigrate.Step) ([]byte, error) {
	out, _, err := configmigrate.Upgrade(data, target, steps)
	if err != nil {
		return nil, fatal(errorf("config %s: %w", name, err))
	}
	return out, nil
}

// ValidationError is an ordinary config mistake: a value out of its range
// or an unknown key, as opposed to a fatal one (an unreadable or newer
// file, a credential that does not resolve). Every command refuses both;
// the class tells a caller whether editing a value is the whole fix.
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

// IsOrdinary reports whether err is an ordinary validation failure (see
// [ValidationError]). Anything else is fatal: a bad
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
