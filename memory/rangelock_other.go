//go:build !linux

package memory

import (
	"context"
	"path/filepath"
)

// Without open-file-description locks each session has a lock file per
// purpose, locked whole with flock (or not at all where there is none).

type lockPurpose int

const (
	turnLock lockPurpose = iota // Store.Lock, held across a turn
	fileLock                    // lockKey, held around file access
)

// rangeLocks is empty where locks are per-session files.
type rangeLocks struct{}

func (s *Store) lockRange(ctx context.Context, key string, p lockPurpose) (unlock func(), err error) {
	name := s.turnLockFile(key)
	if p == fileLock {
		name = filepath.Join(s.dir, "."+keyStem(key)+".lock")
	}
	return lockFileCtx(ctx, name)
}

// turnLockFile is the file Store.Lock locks for key.
func (s *Store) turnLockFile(key string) string {
	return filepath.Join(s.dir, "."+keyStem(key)+".turn.lock")
}
