//go:build unix

package cli

import (
	"os"
	"syscall"
)

// raise sends s to the process again; with its handler reset, the runtime
// ends the process by it.
func raise(s os.Signal) {
	if n, ok := s.(syscall.Signal); ok {
		_ = syscall.Kill(os.Getpid(), n)
	}
}
