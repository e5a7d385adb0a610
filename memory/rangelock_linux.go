package memory

import (
	"context"
	"hash/fnv"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// On Linux the cross-process half of a session's locks is a one-byte
// range of one shared file per sessions directory, locked with an
// open-file-description lock (F_OFD_SETLK), instead of a lock file per
// session and purpose: creating a file costs a few hundred microseconds
// on some disks, and a new conversation's first turn paid for two before
// its request could go out. OFD locks conflict between open file
// descriptions, so every Store (each opens the file once) excludes every
// other, in this process and in others, exactly like the flock of a
// per-session file; goroutines of one Store are ordered by its in-process
// mutexes first.
//
// Processes of joshbot versions before this one lock the per-session
// files instead; restart them with the upgrade.

// rangeLockName is the shared lock file in the sessions directory; no
// session's own lock file can have this name (a key's file stem holds
// an underscore).
const rangeLockName = ".sessions.lock"

// Linux fcntl commands for open-file-description locks (asm-generic,
// the same on every architecture).
const (
	fOFDSetLk  = 37
	fOFDSetLkw = 38
)

// lockPurpose picks one of a session's locks.
type lockPurpose int

const (
	turnLock lockPurpose = iota // Store.Lock, held across a turn
	fileLock                    // lockKey, held around file access
)

// rangeLocks is a Store's open handle on the shared lock file.
type rangeLocks struct {
	once sync.Once
	f    *os.File
	err  error
}

func (s *Store) rangeFile() (*os.File, error) {
	s.ranges.once.Do(func() {
		s.ranges.f, s.ranges.err = os.OpenFile(filepath.Join(s.dir, rangeLockName), os.O_RDWR|os.O_CREATE, 0o600)
	})
	return s.ranges.f, s.ranges.err
}

// rangeOf is the byte that stands for key's lock of purpose p: a 61-bit
// FNV-1a hash of the key, so every process agrees on it, times two.
func rangeOf(key string, p lockPurpose) int64 {
	h := fnv.New64a()
	h.Write([]byte(key))
	return int64(h.Sum64()>>3)*2 + int64(p)
}

// lockRange takes key's lock of purpose p across processes, giving up
// when ctx ends; a busy lock is tried again after a pause that grows to
// lockPollMax, as a blocking wait could not be interrupted.
func (s *Store) lockRange(ctx context.Context, key string, p lockPurpose) (unlock func(), err error) {
	f, err := s.rangeFile()
	if err != nil {
		return nil, errorf("open lock file: %w", err)
	}
	fd := int(f.Fd())
	lk := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: 0, Start: rangeOf(key, p), Len: 1}
	cmd := fOFDSetLkw
	if ctx.Done() != nil {
		cmd = fOFDSetLk
	}
	pause := time.Millisecond
	for {
		err = syscall.FcntlFlock(uintptr(fd), cmd, &lk)
		if err == nil {
			break
		}
		if err == syscall.EINTR {
			continue
		}
		if err != syscall.EAGAIN && err != syscall.EACCES {
			return nil, errorf("lock %s: %w", f.Name(), err)
		}
		select {
		case <-ctx.Done():
			return nil, errorf("wait for lock %s: %w", f.Name(), context.Cause(ctx))
		case <-time.After(pause):
		}
		pause = min(2*pause, lockPollMax)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			un := lk
			un.Type = syscall.F_UNLCK
			for syscall.FcntlFlock(uintptr(fd), fOFDSetLk, &un) == syscall.EINTR {
			}
		})
	}, nil
}

// turnLockFile is the file Store.Lock locks for key.
func (s *Store) turnLockFile(string) string { return filepath.Join(s.dir, rangeLockName) }
