package bus

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// ErrClosed is returned when publishing to, or subscribing on, a closed Bus.
var ErrClosed = errors.New("bus: closed")

// Options configures a [Bus]. A nil *Options means the defaults.
type Options struct {
	// Buffer is the capacity of the inbound queue and of each consumer's
	// outbound queue. Zero means 64.
	Buffer int
}

// Bus is a goroutine-safe message multiplexer. The zero value is not usable;
// call [New].
type Bus struct {
	buffer  int
	inbound chan Inbound

	mu        sync.RWMutex
	consumers map[string]chan Outbound
	closed    bool
	done      chan struct{}
	closeOnce sync.Once
}

// New returns an open Bus.
func New(opts *Options) *Bus {
	n := 64
	if opts != nil && opts.Buffer > 0 {
		n = opts.Buffer
	}
	return &Bus{
		buffer:    n,
		inbound:   make(chan Inbound, n),
		consumers: make(map[string]chan Outbound),
		done:      make(chan struct{}),
	}
}

// PublishInbound queues m for the agent. It blocks while the queue is full,
// until ctx is done or the bus closes.//
// Deprecated: joshbot's gateway does not queue inbound messages here. The
// channels module's durable inbox is the inbound queue: it records a
// message on disk before the platform is acknowledged, orders turns per
// conversation and settles a message only when its turn is done, none of
// which an in-memory queue can keep across a crash. Hand accepted
// messages to the agent directly (channels.Router.Run does).
func (b *Bus) PublishInbound(ctx context.Context, m Inbound) error {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.closed {
		return ErrClosed
	}
	select {
	case b.inbound <- m:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("bus: publish inbound from %s: %w", m.Channel, ctx.Err())
	case <-b.done:
		return ErrClosed
	}
}

// Inbound returns the queue the agent consumes. It is closed by [Bus.Close].//
// Deprecated: joshbot's gateway does not consume inbound messages here. The
// channels module's durable inbox is the inbound queue: it records a
// message on disk before the platform is acknowledged, orders turns per
// conversation and settles a message only when its turn is done, none of
// which an in-memory queue can keep across a crash. Hand accepted
// messages to the agent directly (channels.Router.Run does).
func (b *Bus) Inbound() <-chan Inbound { return b.inbound }

// OutboundChannel registers a consumer and returns its private queue, which
// receives every outbound message. Calling it again with the same name
// returns the same queue. The queue is closed by [Bus.Close]; a consumer on a
// closed bus gets a closed queue.
func (b *Bus) OutboundChannel(name string) <-chan Outbound {
	b.mu.Lock()
	defer b.mu.Unlock()
	if ch, ok := b.consumers[name]; ok {
		return ch
	}
	ch := make(chan Outbound, b.buffer)
	if b.closed {
		close(ch)
		return ch
	}
	b.consumers[name] = ch
	return ch
}

// PublishOutbound delivers m to every registered consumer. It blocks while
// any consumer's queue is full, until ctx is done or the bus closes, and it
// reports an error rather than silently dropping m when no consumer is
// registered.
func (b *Bus) PublishOutbound(ctx context.Context, m Outbound) error {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.closed {
		return ErrClosed
	}
	if len(b.consumers) == 0 {
		return fmt.Errorf("bus: outbound for %s: no channel is registered to deliver it", m.Channel)
	}
	for name, ch := range b.consumers {
		select {
		case ch <- m:
		case <-ctx.Done():
			return fmt.Errorf("bus: outbound to consumer %s: %w", name, ctx.Err())
		case <-b.done:
			return ErrClosed
		}
	}
	return nil
}

// Close stops the bus: blocked publishers return [ErrClosed], and the
// inbound queue and every consumer queue are closed once no publisher holds
// them. Close is idempotent.
func (b *Bus) Close() {
	// Wake blocked publishers first: they hold the read lock the write lock
	// below would otherwise wait for forever.
	b.closeOnce.Do(func() { close(b.done) })
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	b.closed = true
	close(b.inbound)
	for _, ch := range b.consumers {
		close(ch)
	}
}
