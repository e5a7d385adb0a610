// Package footprint keeps a long-running joshbot process small while it
// waits for work.
//
// Starting up touches code and tables that an idle gateway never touches
// again: every package's initialisation, config parsing, flag handling,
// tool registration. Those pages of the executable stay mapped, and so
// counted as resident, for the life of the process. [ReleaseExecutable]
// unmaps them; [Idler] calls it once start-up has settled and again after
// each busy spell, so the resident set of an idle process is what waiting
// really needs.
package footprint

import (
	"context"
	"sync"
	"time"
)

// Idler calls a release function when the process has been quiet: once
// after start-up, and once after each spell of work has been followed by a
// quiet period. Work is marked with [Idler.Busy]. It is safe for
// concurrent use.
type Idler struct {
	startup time.Duration
	quiet   time.Duration
	release func()

	mu       sync.Mutex
	inFlight int
	dirty    bool // work has happened since the last release
	wake     chan struct{}
}

// NewIdler returns an Idler that calls release startup after [Idler.Run]
// begins, and then each time quiet passes with no work in flight after
// some work. A nil release means [ReleaseExecutable].
func NewIdler(startup, quiet time.Duration, release func()) *Idler {
	if release == nil {
		release = func() { ReleaseExecutable() }
	}
	return &Idler{startup: startup, quiet: quiet, release: release, wake: make(chan struct{}, 1)}
}

// Busy marks a piece of work as started; the returned function marks it
// done and must be called exactly once.
func (i *Idler) Busy() (done func()) {
	i.mu.Lock()
	i.inFlight++
	i.dirty = true
	i.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			i.mu.Lock()
			i.inFlight--
			i.mu.Unlock()
			select {
			case i.wake <- struct{}{}:
			default:
			}
		})
	}
}

// Run waits out start-up, releases, and then releases after every quiet
// period that follows work, until ctx ends.
func (i *Idler) Run(ctx context.Context) {
	t := time.NewTimer(i.startup)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return
	case <-t.C:
	}
	i.mu.Lock()
	busy := i.inFlight > 0
	if !busy {
		i.dirty = false
	}
	i.mu.Unlock()
	if !busy {
		i.release()
	}
	for {
		// Wait for work to end, then for the quiet period to pass with
		// nothing new starting.
		select {
		case <-ctx.Done():
			return
		case <-i.wake:
		}
		for {
			t.Reset(i.quiet)
			select {
			case <-ctx.Done():
				return
			case <-i.wake:
				continue // more work ended: the quiet period starts again
			case <-t.C:
			}
			break
		}
		i.mu.Lock()
		ready := i.inFlight == 0 && i.dirty
		if ready {
			i.dirty = false
		}
		i.mu.Unlock()
		if ready {
			i.release()
		}
	}
}
