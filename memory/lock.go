package memory

import (
	"context"
	"sync"
)

// keyedMutex hands out one mutex per key. Entries are reference counted and
// removed when the last holder or waiter leaves, so a long-running process
// that sees many distinct keys does not accumulate mutexes. The zero value is
// ready to use.
type keyedMutex struct {
	mu      sync.Mutex
	entries map[string]*keyedEntry
}

type keyedEntry struct {
	sem  chan struct{} // holds one token while the key is locked
	refs int           // holders plus waiters; guarded by keyedMutex.mu
}

// lock blocks until the mutex for key is held and returns its release
// function. Calling the release function more than once has no further effect.
func (k *keyedMutex) lock(key string) (unlock func()) {
	unlock, _ = k.lockCtx(context.Background(), key)
	return unlock
}

// lockCtx is lock that gives up when ctx is done, returning ctx's error.
func (k *keyedMutex) lockCtx(ctx context.Context, key string) (unlock func(), err error) {
	k.mu.Lock()
	if k.entries == nil {
		k.entries = make(map[string]*keyedEntry)
	}
	e := k.entries[key]
	if e == nil {
		e = &keyedEntry{sem: make(chan struct{}, 1)}
		k.entries[key] = e
	}
	// Count ourselves before releasing k.mu so that a concurrent unlock
	// cannot delete the entry while we are about to wait on it.
	e.refs++
	k.mu.Unlock()

	leave := func() {
		k.mu.Lock()
		e.refs--
		if e.refs == 0 {
			delete(k.entries, key)
		}
		k.mu.Unlock()
	}
	select {
	case e.sem <- struct{}{}:
	case <-ctx.Done():
		leave()
		return nil, context.Cause(ctx)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			<-e.sem
			leave()
		})
	}, nil
}

// len reports how many keys currently have an entry; tests use it to check
// that entries are released.
func (k *keyedMutex) len() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.entries)
}
