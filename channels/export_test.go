package channels

import "time"

// SetAfter replaces the backoff's timer source.
func (b *Backoff) SetAfter(f func(time.Duration) <-chan time.Time) { b.after = f }
