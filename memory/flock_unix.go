//go:build unix

package memory

import (
	"context"
	"os"
	"syscall"
	"time"

	"github.com/joshbot/joshbot/memory/internal/sysfile"
)

// lockFile takes an exclusive advisory lock on name, creating it with mode
// 0600, and returns the function that releases it. It is what keeps two
// processes sharing a sessions directory (the gateway and a `joshbot agent
// -m`, say) from both loading a session, each adding a message, and one
// rename discarding the other's.
func lockFile(name string) (unlock func(), err error) {
	return lockFileCtx(context.Background(), name)
}

// lockFileCtx is lockFile that gives up when ctx is done. A blocking flock
// cannot be interrupted, so a lock that is busy is tried again after a
// short pause that grows to lockPollMax.
func lockFileCtx(ctx context.Context, name string) (unlock func(), err error) {
	f, err := sysfile.Open(name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, errorf("open lock file: %w", err)
	}
	how := syscall.LOCK_EX
	if ctx.Done() != nil {
		how |= syscall.LOCK_NB
	}
	pause := time.Millisecond
	for {
		err = syscall.Flock(int(f.Fd()), how)
		if err == nil {
			break
		}
		if err == syscall.EINTR {
			continue
		}
		if err != syscall.EWOULDBLOCK {
			f.Close()
			return nil, errorf("lock %s: %w", name, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, errorf("wait for lock %s: %w", name, context.Cause(ctx))
		case <-time.After(pause):
		}
		pause = min(2*pause, lockPollMax)
	}
	return func() {
		// Closing the descriptor releases the lock.
		f.Close()
	}, nil
}

// lockPollMax bounds the pause between attempts on a busy lock: short
// beside a model call, long enough that waiters cost nothing.
const lockPollMax = 20 * time.Millisecond
