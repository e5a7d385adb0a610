//go:build unix

package mcpclient

import (
	"os"
	"path/filepath"
	"syscall"
)

// lockTrust takes an exclusive advisory lock (flock) on the lock file
// beside the trust store at path, creating it (and its directory) if
// needed, and returns the function that releases it. Every process that
// changes the store holds it across its read-modify-write, so two
// approvals made at once both survive.
func lockTrust(path string) (func(), error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, errorf("mcp trust store lock: %w", err)
	}
	f, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, errorf("mcp trust store lock: %w", err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, errorf("mcp trust store lock %s: %w", f.Name(), err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
