//go:build unix

package memory

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestLockDirKeepsTheWorkspaceLockHarmless is the `flock -x .memory.lock
// sleep` case: anything that can write the workspace can hold a lock file
// there forever. With LockDir outside the workspace, a lock held on the
// workspace's file stalls nothing. Without it (the old layout) the same
// write waits, which is what hung every later turn.
func TestLockDirKeepsTheWorkspaceLockHarmless(t *testing.T) {
	ws, state := t.TempDir(), t.TempDir()
	f, err := os.OpenFile(filepath.Join(ws, LockFileName), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}

	write := func(opts *LongTermOptions) (done chan error) {
		l, err := OpenLongTerm(ws, opts)
		if err != nil {
			t.Fatal(err)
		}
		done = make(chan error, 1)
		go func() {
			_, _, err := l.AddFacts(SharedScope, []string{"the sky is blue"})
			done <- err
		}()
		return done
	}

	select {
	case err := <-write(&LongTermOptions{LockDir: filepath.Join(state, "memory")}):
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a lock held in the workspace stalled memory with LockDir outside it")
	}
	if _, err := os.Stat(filepath.Join(state, "memory", LockFileName)); err != nil {
		t.Fatalf("lock file not in LockDir: %v", err)
	}

	stalled := write(nil)
	select {
	case err := <-stalled:
		t.Fatalf("without LockDir the workspace lock was not in the way (err %v); the test no longer shows the hazard", err)
	case <-time.After(200 * time.Millisecond):
	}
	f.Close() // releases the lock so the stalled writer can finish
	if err := <-stalled; err != nil {
		t.Fatal(err)
	}
}
