//go:build unix

package memory

import (
	"fmt"
	"os"
	"syscall"
)

// lockFile takes an exclusive advisory lock on name, creating it with mode
// 0600, and returns the function that releases it. It is what keeps two
// processes sharing a sessions directory (the gateway and a `joshbot agent
// -m`, say) from both loading a session, each adding a message, and one
// rename discarding the other's.
func lockFile(name string) (unlock func(), err error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", name, err)
	}
	return func() {
		// Closing the descriptor releases the lock.
		f.Close()
	}, nil
}
