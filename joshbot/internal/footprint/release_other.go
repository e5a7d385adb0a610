//go:build !linux

package footprint

// ReleaseExecutable does nothing on this system: only Linux is known to
// keep an idle process's start-up pages mapped in a way worth undoing.
func ReleaseExecutable() (int, error) { return 0, nil }

// ReleaseCode does nothing on this system, like [ReleaseExecutable].
func ReleaseCode(uintptr) (int, error) { return 0, nil }
