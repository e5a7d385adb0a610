//go:build !unix

package cli

import "os"

// raise ends the process, as an uncaught console interrupt or termination
// does where signals cannot be sent to oneself.
func raise(os.Signal) {
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		_ = p.Kill()
	}
	os.Exit(1)
}
