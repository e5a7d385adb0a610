package channels

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"
)

// Jitter scales d by a random factor in [0.75, 1.25), so gateways that lost
// their connection together do not retry together, and no fixed period
// lines up with a server's session lifetime.
func Jitter(d time.Duration) time.Duration {
	return time.Duration(float64(d) * (0.75 + rand.Float64()/2))
}

// Backoff is a jittered exponential reconnect ladder. It is safe for
// concurrent use. The zero value is not usable; call [NewBackoff].
type Backoff struct {
	mu         sync.Mutex
	floor, max time.Duration
	next       time.Duration
	// after is time.After, replaceable by tests.
	after func(time.Duration) <-chan time.Time
}

// NewBackoff returns a ladder that starts at floor and doubles up to max.
// A floor below one millisecond is raised to it, and a max below floor is
// raised to floor.
func NewBackoff(floor, max time.Duration) *Backoff {
	floor = maxDuration(floor, time.Millisecond)
	max = maxDuration(max, floor)
	return &Backoff{floor: floor, max: max, next: floor, after: time.After}
}

// Sleep waits the current step, jittered, or until ctx ends (returning its
// error), then doubles the step toward the cap.
func (b *Backoff) Sleep(ctx context.Context) error {
	b.mu.Lock()
	d := Jitter(b.next)
	b.next = min(b.next*2, b.max)
	after := b.after
	b.mu.Unlock()
	select {
	case <-after(d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Reset returns the ladder to its floor. Call it once the connection has
// proved healthy (an update actually arrived), not merely when a dial
// succeeded: a server that accepts and then drops would otherwise be
// hammered at the floor rate forever.
func (b *Backoff) Reset() {
	b.mu.Lock()
	b.next = b.floor
	b.mu.Unlock()
}

func maxDuration(a, b time.Duration) time.Duration {
	if a > b {
		return a
	}
	return b
}
