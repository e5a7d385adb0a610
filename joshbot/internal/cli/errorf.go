package cli

import "fmt"

// errorf is fmt.Errorf called out of line: fmt.Errorf is small enough to be
// inlined, and its inlined errors.New path cost about 50 bytes of binary at
// each of this package's call sites. Same errors, same wrapping.
//
//go:noinline
func errorf(format string, a ...any) error {
	return fmt.Errorf(format, a...)
}
