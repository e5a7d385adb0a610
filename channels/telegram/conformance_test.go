package telegram_test

import (
	"context"

	"log/slog"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/channels/channeltest"
	"github.com/joshbot/joshbot/channels/telegram"
)

func TestConformance(t *testing.T) {
	channeltest.Run(t, func(t *testing.T) channeltest.Platform {
		f := newFake(t)
		tg, err := telegram.New(&telegram.Options{Token: token, APIURL: f.srv.URL, PollTimeout: time.Second, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		tg.SetBackoff(func() telegram.Backoff { return quickBackoff{} })
		return &platform{fake: f, tg: tg, updates: map[int]int{}}
	})
}

// platform implements channeltest.Platform on the fake Bot API.
type platform struct {
	fake    *fakeAPI
	tg      *telegram.Telegram
	mu      sync.Mutex
	updates map[int]int // Seq -> update id
}

// quickBackoff retries at once (after a short pause) so the suite's
// reconnect check runs fast.
type quickBackoff struct{}

func (quickBackoff) Sleep(ctx context.Context) error {
	select {
	case <-time.After(10 * time.Millisecond):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
func (quickBackoff) Reset() {}

func (p *platform) Channel() channels.Channel         { return p.tg }
func (p *platform) Conversation(sender string) string { return sender }
func (p *platform) Limit() int                        { return 4096 }

func (p *platform) Inject(t *testing.T, m channeltest.Message) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if id, ok := p.updates[m.Seq]; ok {
		p.fake.pushAgain(id)
		return
	}
	user, err := strconv.Atoi(m.Sender)
	if err != nil {
		t.Fatalf("sender %q is not a Telegram user id", m.Sender)
	}
	p.updates[m.Seq] = p.fake.push(map[string]any{"message": map[string]any{
		"message_id": 100 + m.Seq,
		"date":       1,
		"text":       m.Text,
		"from":       map[string]any{"id": user, "is_bot": false, "first_name": "U"},
		"chat":       map[string]any{"id": user, "type": "private"},
	}})
}

// Acked: Telegram confirms an update when a later getUpdates asks for an
// offset past it.
func (p *platform) Acked(t *testing.T, seq int) (bool, bool) {
	p.mu.Lock()
	id := p.updates[seq]
	p.mu.Unlock()
	for _, c := range p.fake.callsOf("getUpdates") {
		if off, _ := strconv.Atoi(c.Params["offset"]); off > id {
			return true, true
		}
	}
	return false, true
}

func (p *platform) Drop(t *testing.T) {
	p.fake.mu.Lock()
	p.fake.dropPolls++
	p.fake.mu.Unlock()
	before := len(p.fake.callsOf("getUpdates"))
	waitFor(t, "the dropped poll", func() bool { return len(p.fake.callsOf("getUpdates")) > before })
}

func (p *platform) Sent(t *testing.T, conversation string) []string {
	var out []string
	for _, c := range p.fake.callsOf("sendMessage") {
		if c.Params["chat_id"] == conversation {
			out = append(out, c.Params["text"])
		}
	}
	return out
}
