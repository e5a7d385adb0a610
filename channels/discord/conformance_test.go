package discord_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/channels/channeltest"
	"github.com/joshbot/joshbot/channels/discord"
)

// quickBackoff retries after a short pause so tests run fast.
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

// newAdapter returns an adapter wired to f.
func newAdapter(t *testing.T, f *fakeDiscord, opts *discord.Options) *discord.Discord {
	t.Helper()
	o := discord.Options{}
	if opts != nil {
		o = *opts
	}
	o.Token = f.token
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	d, err := discord.New(&o)
	if err != nil {
		t.Fatal(err)
	}
	d.SetBackoff(func() discord.Backoff { return quickBackoff{} })
	d.SetDownloader(&http.Client{}, func(host string) bool { return host == "127.0.0.1" })
	return d
}

func TestConformance(t *testing.T) {
	channeltest.Run(t, func(t *testing.T) channeltest.Platform {
		f := newFakeDiscord(t)
		return &platform{f: f, d: newAdapter(t, f, nil)}
	})
}

type platform struct {
	f *fakeDiscord
	d *discord.Discord
}

func (p *platform) Channel() channels.Channel         { return p.d }
func (p *platform) Conversation(sender string) string { return "dm-" + sender }
func (p *platform) Limit() int                        { return discord.MaxMessage }

func (p *platform) Inject(t *testing.T, m channeltest.Message) {
	// Events exist only for a session: wait for the first READY.
	p.f.waitSession(t)
	p.f.dispatch("MESSAGE_CREATE", message(fmt.Sprint(5000+m.Seq), p.Conversation(m.Sender), "", user(m.Sender, "u"+m.Sender), m.Text, nil))
}

// Acked: Discord has no per-message acknowledgement.
func (p *platform) Acked(*testing.T, int) (bool, bool) { return false, false }

func (p *platform) Drop(t *testing.T) {
	// Wait for a connection to be up, then cut it, and wait for the
	// adapter to resume.
	deadline := time.Now().Add(10 * time.Second)
	for {
		p.f.mu.Lock()
		up := p.f.conn != nil
		p.f.mu.Unlock()
		if up {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no connection to drop")
		}
		time.Sleep(5 * time.Millisecond)
	}
	for len(p.f.connected) > 0 {
		<-p.f.connected
	}
	p.f.drop()
	p.f.waitConnected(t)
}

func (p *platform) Sent(t *testing.T, conversation string) []string {
	var out []string
	for _, m := range p.f.sentTo(conversation) {
		out = append(out, m.Content)
	}
	return out
}
