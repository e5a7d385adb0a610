package agent

import (
	"errors"
	"fmt"
	"syscall"
)

// ErrNotSaved is wrapped by the error of [Agent.Process] when the turn
// produced its answer (in the returned Reply) but the session could not be
// written afterwards. The answer is real and should be shown, with a
// warning that the conversation will not remember it. The error is a
// [*SaveError].
var ErrNotSaved = errors.New("not saved")

// SaveError is the error of a turn whose answer could not be saved. It
// matches [ErrNotSaved] with errors.Is and unwraps to the store's error.
type SaveError struct {
	// Session is the session key that was not written.
	Session string
	// Err is the store's error.
	Err error
}

// Error says that the answer was not saved, and why, in words for the user.
func (e *SaveError) Error() string {
	if e.DiskFull() {
		return fmt.Sprintf("not saved: disk full: this answer is not in session %s, so the conversation will not remember it; free some disk space: %v", e.Session, e.Err)
	}
	return fmt.Sprintf("not saved: this answer is not in session %s, so the conversation will not remember it: %v", e.Session, e.Err)
}

// Unwrap returns the store's error.
func (e *SaveError) Unwrap() error { return e.Err }

// Is reports whether target is [ErrNotSaved].
func (e *SaveError) Is(target error) bool { return target == ErrNotSaved }

// DiskFull reports whether the save failed because the filesystem is full
// (or the user's quota is spent).
func (e *SaveError) DiskFull() bool {
	return errors.Is(e.Err, syscall.ENOSPC) || errors.Is(e.Err, syscall.EDQUOT)
}
