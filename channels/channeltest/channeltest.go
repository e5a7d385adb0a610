package channeltest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/joshbot/joshbot/channels"
)

// Message is one message a test makes the fake platform send.
type Message struct {
	// Seq numbers the message within one test, from 1. The platform maps
	// it to its own message id; the same Seq means the same platform
	// message (a redelivery).
	Seq int
	// Sender is the sender's platform user id; the adapter must report it
	// as Inbound.Principal. The suite uses short numeric strings.
	Sender string
	// Text is the message body.
	Text string
}

// Platform is a fake chat platform wired to one fresh adapter. Each
// adapter's tests implement it; the suite asks for a new one per check.
// Methods may be called from several goroutines.
type Platform interface {
	// Channel returns the adapter under test, pointed at the fake and set
	// to reconnect quickly.
	Channel() channels.Channel
	// Conversation returns the conversation id the adapter reports for a
	// direct (one-to-one) conversation with sender.
	Conversation(sender string) string
	// Inject makes the platform send m to the bot in a direct
	// conversation. Injecting the same Seq again is a redelivery of the
	// same platform message.
	Inject(t *testing.T, m Message)
	// Acked reports whether the platform considers message seq
	// acknowledged. observable is false on platforms with no
	// per-message acknowledgement (the suite then checks redelivery
	// only).
	Acked(t *testing.T, seq int) (acked, observable bool)
	// Drop breaks the connection the adapter holds, the way a network
	// failure would.
	Drop(t *testing.T)
	// Sent returns the texts the bot posted into conversation, in order,
	// as the platform received them.
	Sent(t *testing.T, conversation string) []string
	// Limit is the platform's limit on one message, in runes.
	Limit() int
}

// Run runs the suite, one subtest per property, each on a fresh platform
// from newPlatform.
func Run(t *testing.T, newPlatform func(t *testing.T) Platform) {
	for _, tt := range []struct {
		name string
		f    func(t *testing.T, p Platform)
	}{
		{"AckAfterDeliver", testAckAfterDeliver},
		{"RedeliveryRunsOnce", testRedeliveryRunsOnce},
		{"ChunkingLossFree", testChunking},
		{"AllowlistApplied", testAllowlist},
		{"ReconnectWithoutReturning", testReconnect},
		{"SendWhileStartRuns", testConcurrentSend},
	} {
		t.Run(tt.name, func(t *testing.T) { tt.f(t, newPlatform(t)) })
	}
}

// wait is how long the suite waits for anything the fake should see.
const wait = 10 * time.Second

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", wait, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// start runs ch.Start with sink until the test ends, then checks that it
// returned ctx.Err().
func start(t *testing.T, ch channels.Channel, sink channels.Sink) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ch.Start(ctx, sink) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("Start returned %v after its context was cancelled, want context.Canceled", err)
			}
		case <-time.After(wait):
			t.Errorf("Start did not return within %v of its context ending", wait)
		}
	})
	t.Cleanup(func() {
		select {
		case err := <-done:
			t.Errorf("Start returned %v while its context was live", err)
			done <- err
		default:
		}
	})
}

// sink records deliveries and refuses the first fail of them.
type sink struct {
	allow map[string]bool
	mu    sync.Mutex
	fail  int
	tries []channels.Inbound
	got   []channels.Inbound
}

func (s *sink) Allowed(_, principal string) bool { return s.allow[principal] }

func (s *sink) Deliver(_ context.Context, inb channels.Inbound) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tries = append(s.tries, inb)
	if s.fail > 0 {
		s.fail--
		return errors.New("channeltest: inbox unavailable")
	}
	s.got = append(s.got, inb)
	return nil
}

func (s *sink) delivered() []channels.Inbound {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]channels.Inbound(nil), s.got...)
}

func (s *sink) attempts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.tries)
}

const (
	alice    = "4242"
	stranger = "6666"
)

func testAckAfterDeliver(t *testing.T, p Platform) {
	s := &sink{allow: map[string]bool{alice: true}, fail: 1}
	start(t, p.Channel(), s)
	p.Inject(t, Message{Seq: 1, Sender: alice, Text: "first try fails"})
	waitFor(t, "the first, refused delivery", func() bool { return s.attempts() >= 1 })
	if acked, ok := p.Acked(t, 1); ok && acked && len(s.delivered()) == 0 {
		t.Fatal("the platform was acknowledged although Deliver returned an error")
	}
	waitFor(t, "the message delivered again after the refusal", func() bool { return len(s.delivered()) == 1 })
	got := s.delivered()[0]
	if got.Text != "first try fails" || got.Principal != alice {
		t.Fatalf("redelivered %+v, want the same message from %s", got, alice)
	}
	if first := s.tries[0]; first.MessageID == "" || first.MessageID != got.MessageID {
		t.Fatalf("message id %q on the refused try and %q on the redelivery: they must be the same, non-empty id", first.MessageID, got.MessageID)
	}
	if _, ok := p.Acked(t, 1); ok {
		waitFor(t, "the acknowledgement after Deliver returned nil", func() bool { acked, _ := p.Acked(t, 1); return acked })
	} else {
		t.Logf("%s has no per-message acknowledgement; redelivery checked", p.Channel().Name())
	}
}

// routed starts ch with a real Router allowing alice, and returns what
// the router's handler ran.
func routed(t *testing.T, ch channels.Channel) func() []channels.Inbound {
	r, err := channels.NewRouter(&channels.RouterOptions{
		Dir:       t.TempDir(),
		Channels:  []string{ch.Name()},
		AllowFrom: map[string][]string{ch.Name(): {alice}},
		Grace:     time.Second,
		Logger:    slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var ran []channels.Inbound
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.Run(ctx, func(_ context.Context, inb channels.Inbound) {
			mu.Lock()
			ran = append(ran, inb)
			mu.Unlock()
		}, nil)
	}()
	t.Cleanup(func() { cancel(); <-done; r.Close() })
	start(t, ch, r)
	return func() []channels.Inbound {
		mu.Lock()
		defer mu.Unlock()
		return append([]channels.Inbound(nil), ran...)
	}
}

func testRedeliveryRunsOnce(t *testing.T, p Platform) {
	ran := routed(t, p.Channel())
	p.Inject(t, Message{Seq: 1, Sender: alice, Text: "once"})
	waitFor(t, "the message to run", func() bool { return len(ran()) == 1 })
	p.Inject(t, Message{Seq: 1, Sender: alice, Text: "once"})
	p.Inject(t, Message{Seq: 2, Sender: alice, Text: "marker"})
	waitFor(t, "the marker after the redelivery", func() bool { return len(ran()) >= 2 })
	time.Sleep(50 * time.Millisecond)
	var texts []string
	for _, inb := range ran() {
		texts = append(texts, inb.Text)
	}
	if strings.Join(texts, "|") != "once|marker" {
		t.Fatalf("the handler ran %q, want the redelivered message once, then the marker", texts)
	}
}

// longText is n runes of prose with paragraphs and non-ASCII letters, so
// a splitter counting bytes or dropping the newline it breaks on is
// caught. It holds no Markdown, so an adapter that renders Markdown into
// platform markup posts it unchanged (fences are [channels.Chunk]'s own
// tests).
func longText(n int) string {
	var b strings.Builder
	words := []string{"café", "naïve", "straße", "joshbot", "adapter", "résumé"}
	for i := 0; utf8.RuneCountInString(b.String()) < n; i++ {
		switch {
		case i%97 == 0:
			b.WriteString("\n\n")
		case i%13 == 0:
			b.WriteString("\n")
		default:
			b.WriteString(words[i%len(words)])
			b.WriteString(" ")
		}
	}
	return b.String()
}

func testChunking(t *testing.T, p Platform) {
	ch := p.Channel()
	start(t, ch, &sink{allow: map[string]bool{alice: true}})
	conv := p.Conversation(alice)
	limit := p.Limit()
	text := longText(limit*3 + limit/3)
	if err := ch.Send(context.Background(), conv, channels.Outbound{Text: text}); err != nil {
		t.Fatalf("Send: %v", err)
	}
	sent := p.Sent(t, conv)
	if len(sent) < 4 {
		t.Fatalf("%d runes went out in %d messages, want at least 4 at the %d limit", utf8.RuneCountInString(text), len(sent), limit)
	}
	for i, s := range sent {
		if n := utf8.RuneCountInString(s); n > limit {
			t.Errorf("message %d has %d runes, over the platform limit of %d", i, n, limit)
		}
	}
	if got := strings.Join(sent, ""); got != text {
		t.Fatalf("the pieces do not join back to the text: got %d runes, want %d\nfirst difference at byte %d", utf8.RuneCountInString(got), utf8.RuneCountInString(text), firstDiff(got, text))
	}
}

func firstDiff(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func testAllowlist(t *testing.T, p Platform) {
	ran := routed(t, p.Channel())
	p.Inject(t, Message{Seq: 1, Sender: stranger, Text: "let me in"})
	p.Inject(t, Message{Seq: 2, Sender: alice, Text: "hello"})
	waitFor(t, "the allowed sender's message", func() bool { return len(ran()) >= 1 })
	time.Sleep(50 * time.Millisecond)
	for _, inb := range ran() {
		if inb.Principal != alice || inb.Text != "hello" {
			t.Fatalf("the handler ran %+v: only %s is on the allowlist", inb, alice)
		}
	}
	if got := p.Sent(t, p.Conversation(stranger)); len(got) != 0 {
		t.Fatalf("the stranger was answered: %q", got)
	}
}

func testReconnect(t *testing.T, p Platform) {
	s := &sink{allow: map[string]bool{alice: true}}
	start(t, p.Channel(), s)
	p.Inject(t, Message{Seq: 1, Sender: alice, Text: "before"})
	waitFor(t, "the message before the drop", func() bool { return len(s.delivered()) == 1 })
	for i := 0; i < 2; i++ {
		p.Drop(t)
	}
	p.Inject(t, Message{Seq: 2, Sender: alice, Text: "after"})
	waitFor(t, "the message after the drop", func() bool { return len(s.delivered()) >= 2 })
	var texts []string
	for _, inb := range s.delivered() {
		texts = append(texts, inb.Text)
	}
	if strings.Join(texts, "|") != "before|after" {
		t.Fatalf("delivered %q across a dropped connection, want before, after, each once", texts)
	}
}

func testConcurrentSend(t *testing.T, p Platform) {
	ch := p.Channel()
	s := &sink{allow: map[string]bool{alice: true}}
	start(t, ch, s)
	conv := p.Conversation(alice)
	const n = 8
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- ch.Send(context.Background(), conv, channels.Outbound{Text: fmt.Sprintf("reply %d", i)})
		}()
		p.Inject(t, Message{Seq: i + 1, Sender: alice, Text: fmt.Sprintf("message %d", i)})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("Send while Start runs: %v", err)
		}
	}
	waitFor(t, "every inbound message", func() bool { return len(s.delivered()) == n })
	sent := p.Sent(t, conv)
	seen := map[string]bool{}
	for _, s := range sent {
		seen[s] = true
	}
	for i := range n {
		if !seen[fmt.Sprintf("reply %d", i)] {
			t.Fatalf("reply %d missing from %q", i, sent)
		}
	}
}
