package channels

import (
	"context"
	"sync"
	"time"
)

// PacerOptions configures a [Pacer]. Every is required.
type PacerOptions struct {
	// Every is the steady pace: one message per Every in one
	// conversation.
	Every time.Duration
	// Burst is how many messages may go out at once before the pace
	// applies; zero means 1.
	Burst int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// After waits on the clock; nil means time.After.
	After func(time.Duration) <-chan time.Time
}

// Pacer spaces the messages an adapter sends into each conversation, so a
// long reply keeps under the platform's per-chat rate limit (Telegram: about
// one message a second in a chat, twenty a minute in a group) instead of
// being throttled or refused half-way. Each conversation has its own
// allowance of Burst messages that refills at one per Every; waiting for it
// ends when the context does. A nil *Pacer never waits. It is safe for
// concurrent use.
type Pacer struct {
	opts PacerOptions

	mu   sync.Mutex
	next map[string]time.Time // when each conversation's allowance is full again
}

// pacerIdle is how many conversations a pacer keeps before it forgets the
// ones whose allowance is full anyway.
const pacerIdle = 1024

// NewPacer returns a pacer for opts.
func NewPacer(opts *PacerOptions) *Pacer {
	o := *opts
	if o.Burst < 1 {
		o.Burst = 1
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.After == nil {
		o.After = time.After
	}
	return &Pacer{opts: o, next: map[string]time.Time{}}
}

// Wait returns when one more message may go into conversation, having
// reserved it, or with ctx's error (and nothing reserved) when ctx ends
// first.
func (p *Pacer) Wait(ctx context.Context, conversation string) error {
	if p == nil {
		return ctx.Err()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	p.mu.Lock()
	now := p.opts.Now()
	// tat is the theoretical time the conversation's allowance is full
	// again; a message may go when that is at most Burst-1 paces ahead.
	tat := p.next[conversation]
	if tat.Before(now) {
		tat = now
	}
	slack := time.Duration(p.opts.Burst-1) * p.opts.Every
	wait := tat.Sub(now) - slack
	prev, had := p.next[conversation]
	p.next[conversation] = tat.Add(p.opts.Every)
	if len(p.next) > pacerIdle {
		for k, t := range p.next {
			if !t.After(now) {
				delete(p.next, k)
			}
		}
	}
	p.mu.Unlock()
	if wait <= 0 {
		return nil
	}
	select {
	case <-p.opts.After(wait):
		return nil
	case <-ctx.Done():
		// Give the reservation back, unless another message reserved
		// after it (then the pace it set still holds).
		p.mu.Lock()
		if p.next[conversation].Equal(tat.Add(p.opts.Every)) {
			if had {
				p.next[conversation] = prev
			} else {
				delete(p.next, conversation)
			}
		}
		p.mu.Unlock()
		return ctx.Err()
	}
}
