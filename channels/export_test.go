package channels

import "time"

// SetAfter replaces the backoff's timer source.
func (b *Backoff) SetAfter(f func(time.Duration) <-chan time.Time) { b.after = f }

// SetInboxWrite wraps the inbox's record writes with f, which calls write
// to write for real (tests play a full disk with it).
func SetInboxWrite(r *Router, f func(write func() error) error) { r.inbox.wrap = f }
