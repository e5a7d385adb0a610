package channeltest_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/channels/channeltest"
)

// memory is the smallest adapter that keeps the contract: a platform in
// memory with a queue of unacknowledged messages, read by Start, each
// removed only after Deliver returned nil. It shows what the suite asks
// for, and that the suite can be passed.
type memory struct {
	mu      sync.Mutex
	queue   []memMsg
	acked   map[int]bool
	sent    map[string][]string
	conn    int // connection generation; Drop bumps it
	reading int
}

type memMsg struct {
	seq int
	inb channels.Inbound
}

func (m *memory) Name() string { return "memory" }

func (m *memory) Start(ctx context.Context, sink channels.Sink) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Millisecond):
		}
		m.mu.Lock()
		m.reading = m.conn
		if len(m.queue) == 0 {
			m.mu.Unlock()
			continue
		}
		next := m.queue[0]
		m.mu.Unlock()
		if err := sink.Deliver(ctx, next.inb); err != nil {
			continue // not acknowledged: read again
		}
		m.mu.Lock()
		m.queue = m.queue[1:]
		m.acked[next.seq] = true
		m.mu.Unlock()
	}
}

func (m *memory) Send(_ context.Context, conversation string, msg channels.Outbound) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sent[conversation] = append(m.sent[conversation], channels.Chunk(msg.Text, 500)...)
	return nil
}

type memPlatform struct{ m *memory }

func (p memPlatform) Channel() channels.Channel         { return p.m }
func (p memPlatform) Conversation(sender string) string { return "dm-" + sender }
func (p memPlatform) Limit() int                        { return 500 }

func (p memPlatform) Inject(_ *testing.T, msg channeltest.Message) {
	p.m.mu.Lock()
	defer p.m.mu.Unlock()
	p.m.queue = append(p.m.queue, memMsg{seq: msg.Seq, inb: channels.Inbound{
		Channel: "memory", Conversation: p.Conversation(msg.Sender), Principal: msg.Sender,
		Text: msg.Text, MessageID: fmt.Sprint(msg.Seq), IsDirect: true,
	}})
}

func (p memPlatform) Acked(_ *testing.T, seq int) (bool, bool) {
	p.m.mu.Lock()
	defer p.m.mu.Unlock()
	return p.m.acked[seq], true
}

func (p memPlatform) Drop(t *testing.T) {
	p.m.mu.Lock()
	p.m.conn++
	gen := p.m.conn
	p.m.mu.Unlock()
	deadline := time.Now().Add(5 * time.Second)
	for {
		p.m.mu.Lock()
		ok := p.m.reading == gen
		p.m.mu.Unlock()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("memory adapter did not read again")
		}
		time.Sleep(time.Millisecond)
	}
}

func (p memPlatform) Sent(_ *testing.T, conversation string) []string {
	p.m.mu.Lock()
	defer p.m.mu.Unlock()
	return append([]string(nil), p.m.sent[conversation]...)
}

func TestReferenceAdapterPasses(t *testing.T) {
	channeltest.Run(t, func(t *testing.T) channeltest.Platform {
		return memPlatform{&memory{acked: map[int]bool{}, sent: map[string][]string{}}}
	})
}
