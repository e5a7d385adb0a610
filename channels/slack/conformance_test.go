package slack_test

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/channels/channeltest"
	"github.com/joshbot/joshbot/channels/slack"
)

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

func newAdapter(t *testing.T, f *fakeSlack) *slack.Slack {
	t.Helper()
	s, err := slack.New(&slack.Options{AppToken: appToken, BotToken: botToken, APIURL: f.srv.URL + "/api/", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	s.SetBackoff(func() slack.Backoff { return quickBackoff{} })
	return s
}

func TestConformance(t *testing.T) {
	channeltest.Run(t, func(t *testing.T) channeltest.Platform {
		f := newFakeSlack(t)
		return &platform{f: f, s: newAdapter(t, f), envs: map[int]string{}}
	})
}

type platform struct {
	f    *fakeSlack
	s    *slack.Slack
	mu   sync.Mutex
	envs map[int]string // Seq -> first envelope id
}

func (p *platform) Channel() channels.Channel         { return p.s }
func (p *platform) Conversation(sender string) string { return "D" + sender }
func (p *platform) Limit() int                        { return slack.MaxMessage }

func (p *platform) Inject(t *testing.T, m channeltest.Message) {
	id := p.f.event(msg(m.Sender, p.Conversation(m.Sender), "im", fmt.Sprintf("1700000000.%06d", m.Seq), m.Text, nil))
	p.mu.Lock()
	if _, ok := p.envs[m.Seq]; !ok {
		p.envs[m.Seq] = id
	}
	p.mu.Unlock()
}

func (p *platform) Acked(t *testing.T, seq int) (bool, bool) {
	p.mu.Lock()
	id := p.envs[seq]
	p.mu.Unlock()
	return p.f.isAcked(id), true
}

func (p *platform) Drop(t *testing.T) {
	deadline := time.Now().Add(10 * time.Second)
	for !p.f.connected() {
		if time.Now().After(deadline) {
			t.Fatal("no connection to drop")
		}
		time.Sleep(5 * time.Millisecond)
	}
	p.f.mu.Lock()
	opens := p.f.opens
	p.f.mu.Unlock()
	p.f.drop()
	for {
		p.f.mu.Lock()
		again := p.f.opens > opens && p.f.conn != nil
		p.f.mu.Unlock()
		if again {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the adapter did not reconnect")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (p *platform) Sent(t *testing.T, conversation string) []string {
	var out []string
	for _, m := range p.f.postsTo(conversation) {
		out = append(out, m.Text)
	}
	return out
}
