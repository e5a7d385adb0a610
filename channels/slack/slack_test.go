package slack_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/joshbot/joshbot/bus"
	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/channels/slack"
)

type recordingSink struct {
	mu  sync.Mutex
	got []channels.Inbound
}

func (s *recordingSink) Deliver(_ context.Context, inb channels.Inbound) error {
	s.mu.Lock()
	s.got = append(s.got, inb)
	s.mu.Unlock()
	return nil
}

func (s *recordingSink) delivered() []channels.Inbound {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]channels.Inbound(nil), s.got...)
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func run(t *testing.T, s *slack.Slack, sink channels.Sink) chan error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Start(ctx, sink) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Error("Start did not return")
		}
	})
	return done
}

func TestGatingAndThreads(t *testing.T) {
	f := newFakeSlack(t)
	s := newAdapter(t, f)
	sink := &recordingSink{}
	run(t, s, sink)
	mentionBlocks := []any{map[string]any{"type": "rich_text", "elements": []any{map[string]any{"type": "rich_text_section", "elements": []any{
		map[string]any{"type": "user", "user_id": botUser}, map[string]any{"type": "text", "text": " deploy?"}}}}}}
	for _, tt := range []struct {
		name      string
		ev        map[string]any
		conv      string
		direct    bool
		mentioned bool
		text      string
	}{
		{"dm", msg("U1", "D1", "im", "1.0001", "hi", nil), "D1", true, false, "hi"},
		{"channel, not addressed", msg("U1", "C1", "channel", "1.0002", "UBOT is a name", nil), "C1:1.0002", false, false, "UBOT is a name"},
		{"channel, mention in blocks", msg("U1", "C1", "channel", "1.0003", "<@UBOT> deploy?", map[string]any{"blocks": mentionBlocks}), "C1:1.0003", false, true, "deploy?"},
		{"app_mention", map[string]any{"type": "app_mention", "user": "U1", "channel": "C1", "ts": "1.0004", "text": "<@UBOT> status"}, "C1:1.0004", false, true, "status"},
		{"thread reply, bot not in it", msg("U1", "C1", "channel", "1.0005", "more", map[string]any{"thread_ts": "1.0002"}), "C1:1.0002", false, false, "more"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			n := len(sink.delivered())
			f.event(tt.ev)
			waitFor(t, "delivery", func() bool { return len(sink.delivered()) > n })
			got := sink.delivered()[n]
			if got.Conversation != tt.conv || got.IsDirect != tt.direct || got.Mentioned != tt.mentioned || got.Text != tt.text || got.Principal != "U1" {
				t.Fatalf("got %+v, want conv=%s direct=%v mentioned=%v text=%q", got, tt.conv, tt.direct, tt.mentioned, tt.text)
			}
		})
	}
	// Once the bot answered in a thread, a follow-up there addresses it.
	if err := s.Send(context.Background(), "C1:1.0003", channels.Outbound{Text: "deploying"}); err != nil {
		t.Fatal(err)
	}
	if p := f.postsTo("C1"); len(p) != 1 || p[0].Thread != "1.0003" {
		t.Fatalf("posts %+v, want one in thread 1.0003", p)
	}
	n := len(sink.delivered())
	f.event(msg("U1", "C1", "channel", "1.0006", "thanks, and rollback?", map[string]any{"thread_ts": "1.0003"}))
	// Ignored: an edit, a bot's post, the bot itself.
	f.event(msg("U1", "C1", "channel", "1.0007", "edited", map[string]any{"subtype": "message_changed"}))
	f.event(msg("U2", "C1", "channel", "1.0008", "bot post", map[string]any{"bot_id": "B1"}))
	f.event(msg(botUser, "C1", "channel", "1.0009", "own", nil))
	f.event(msg("U1", "D1", "im", "1.0010", "marker", nil))
	waitFor(t, "marker", func() bool { d := sink.delivered(); return len(d) > n && d[len(d)-1].Text == "marker" })
	got := sink.delivered()[n:]
	if len(got) != 2 || !got[0].Mentioned || got[0].Conversation != "C1:1.0003" {
		t.Fatalf("after the bot's answer got %+v, want the thread follow-up (addressed) and the marker only", got)
	}
}

func TestMessageAndAppMentionShareAnID(t *testing.T) {
	f := newFakeSlack(t)
	sink := &recordingSink{}
	run(t, newAdapter(t, f), sink)
	// A message that visibly mentions the bot: its app_mention twin is
	// acknowledged and not handed over again.
	f.event(msg("U1", "C1", "channel", "2.0001", "<@UBOT> hi", nil))
	twin := f.event(map[string]any{"type": "app_mention", "user": "U1", "channel": "C1", "ts": "2.0001", "text": "<@UBOT> hi"})
	waitFor(t, "the twin acknowledged", func() bool { return f.isAcked(twin) })
	if d := sink.delivered(); len(d) != 1 || d[0].MessageID != "C1:2.0001" || !d[0].Mentioned {
		t.Fatalf("delivered %+v, want the message once, addressed", d)
	}
	// A message event the adapter cannot see the mention in: the
	// app_mention twin, with the same id, still reaches the sink.
	f.event(msg("U1", "C1", "channel", "2.0002", "hi bot", nil))
	f.event(map[string]any{"type": "app_mention", "user": "U1", "channel": "C1", "ts": "2.0002", "text": "hi bot"})
	waitFor(t, "both events of the second message", func() bool { return len(sink.delivered()) == 3 })
	d := sink.delivered()
	if d[1].MessageID != "C1:2.0002" || d[2].MessageID != "C1:2.0002" || d[1].Mentioned || !d[2].Mentioned {
		t.Fatalf("second message delivered as %+v and %+v", d[1], d[2])
	}
}

func TestSendEscapesAndUploadsFiles(t *testing.T) {
	f := newFakeSlack(t)
	s := newAdapter(t, f)
	big := make([]byte, slack.MaxFileBytes+1)
	err := s.Send(context.Background(), "C1:1.0003", channels.Outbound{Text: "hello <!channel> & <@U2>", Files: []bus.Attachment{
		{Name: "plot.png", Data: []byte("png bytes")}, {Name: "huge.bin", Data: big}}})
	if err == nil || !strings.Contains(err.Error(), "huge.bin") {
		t.Fatalf("Send = %v, want an error naming the oversize file", err)
	}
	p := f.postsTo("C1")
	if len(p) != 1 || !strings.HasPrefix(p[0].Text, "hello <!channel> & <@U2>") || !strings.Contains(p[0].Text, "huge.bin") || p[0].Thread != "1.0003" {
		t.Fatalf("posts %+v", p)
	}
	if p[0].LinkNames != false {
		t.Fatalf("link_names = %v, want false", p[0].LinkNames)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.shared) != 1 || f.shared[0].Title != "plot.png" || f.shared[0].Bytes != 9 || f.shared[0].Channel != "C1" || f.shared[0].Thread != "1.0003" {
		t.Fatalf("shared files %+v, want plot.png (9 bytes) in the thread", f.shared)
	}
	if len(f.uploadAuth) != 1 || f.uploadAuth[0] != "" {
		t.Fatalf("upload carried Authorization %q: the token must not go with the bytes", f.uploadAuth)
	}
}

// TestEscapedOnTheWire checks what Slack receives, before the fake's
// unescaping: markup a model writes can never become a mention.
func TestEscapedOnTheWire(t *testing.T) {
	if got := slack.Escape("<!channel> & <@U2>"); got != "&lt;!channel&gt; &amp; &lt;@U2&gt;" {
		t.Fatalf("escape = %q", got)
	}
}

func TestDisconnectRequestsAndFatalErrors(t *testing.T) {
	f := newFakeSlack(t)
	s := newAdapter(t, f)
	done := run(t, s, &recordingSink{})
	waitFor(t, "connection", f.connected)
	f.mu.Lock()
	c := f.conn
	f.mu.Unlock()
	f.write(c, map[string]any{"type": "disconnect", "reason": "refresh_requested"})
	waitFor(t, "a second connection", func() bool { f.mu.Lock(); defer f.mu.Unlock(); return f.opens >= 2 && f.conn != nil && f.conn != c })
	f.mu.Lock()
	c = f.conn
	f.mu.Unlock()
	f.write(c, map[string]any{"type": "disconnect", "reason": "link_disabled"})
	select {
	case err := <-done:
		done <- err // for the cleanup
		if !errors.Is(err, slack.ErrLinkDisabled) {
			t.Fatalf("Start = %v, want ErrLinkDisabled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Start kept running after link_disabled")
	}
}

func TestBadTokens(t *testing.T) {
	f := newFakeSlack(t)
	s, err := slack.New(&slack.Options{AppToken: appToken, BotToken: "xoxb-wrong", APIURL: f.srv.URL + "/api/", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.Start(ctx, &recordingSink{}); !errors.Is(err, slack.ErrInvalidAuth) {
		t.Fatalf("Start = %v, want ErrInvalidAuth", err)
	}
	for _, tt := range []struct {
		o    *slack.Options
		want string
	}{{nil, "Options.AppToken"}, {&slack.Options{BotToken: "x"}, "Options.AppToken"}, {&slack.Options{AppToken: "x"}, "Options.BotToken"}} {
		if _, err := slack.New(tt.o); err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "channels.") {
			t.Errorf("New(%+v) = %v, want an error naming %s", tt.o, err, tt.want)
		}
	}
}

// A 1 MiB answer used to be hundreds of posts; now it is a head and the
// whole text shared as reply.md.
func TestSendLongReplyGoesAsAFile(t *testing.T) {
	f := newFakeSlack(t)
	s := newAdapter(t, f)
	text := strings.Repeat("a line of a very long answer, over and over\n", (1<<20)/44)
	if err := s.Send(context.Background(), "C2:1.0004", channels.Outbound{Text: text}); err != nil {
		t.Fatal(err)
	}
	p := f.postsTo("C2")
	if len(p) != 1 || !strings.Contains(p[0].Text, "reply.md") || p[0].Thread != "1.0004" {
		t.Fatalf("%d posts (first %+v), want one head in the thread", len(p), p[0])
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.shared) != 1 || f.shared[0].Title != "reply.md" || f.shared[0].Bytes != len(text) || f.shared[0].Thread != "1.0004" {
		t.Fatalf("shared files %+v, want reply.md with the whole %d-byte answer", f.shared, len(text))
	}
}

// Once ctx ends, the rest of a reply is not sent.
func TestSendStopsWhenContextEnds(t *testing.T) {
	f := newFakeSlack(t)
	s := newAdapter(t, f)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := s.Send(ctx, "C3", channels.Outbound{Text: "hello"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Send = %v, want the context's error", err)
	}
	if n := len(f.postsTo("C3")); n != 0 {
		t.Fatalf("%d posts after the context ended", n)
	}
}
