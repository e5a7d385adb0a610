package telegram_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/channels/telegram"
)

// megabyteAnswer is the 1 MiB answer that used to become 256 messages.
var megabyteAnswer = strings.Repeat("a line of a very long answer, over and over\n", (1<<20)/44)

func TestSendLongReplyGoesAsADocument(t *testing.T) {
	h := newHarness(t, nil, false)
	if err := h.tg.Send(context.Background(), "42", channels.Outbound{Text: megabyteAnswer, ReplyTo: "5:31"}); err != nil {
		t.Fatal(err)
	}
	sends, docs := h.fake.callsOf("sendMessage"), h.fake.callsOf("sendDocument")
	if len(sends) != 1 || len(docs) != 1 {
		t.Fatalf("%d messages and %d documents, want one head message and the answer as one document", len(sends), len(docs))
	}
	if !strings.Contains(sends[0].Params["text"], "reply.md") || sends[0].Params["reply_to_message_id"] != "31" {
		t.Fatalf("head %+v", sends[0].Params)
	}
	if n := docs[0].Files["document"]; n != len(megabyteAnswer) {
		t.Fatalf("document of %d bytes, want the whole %d-byte answer", n, len(megabyteAnswer))
	}
}

func TestSendKeepsToMaxChunks(t *testing.T) {
	h := newHarness(t, &telegram.Options{MaxChunks: 3}, false)
	clk := &fixedClock{} // the pace is not what this test is about
	h.tg.SetClock(clk.now, clk.after)
	three := strings.Repeat("word ", 2400) // 12,000 characters: 3 pieces
	if err := h.tg.Send(context.Background(), "42", channels.Outbound{Text: three}); err != nil {
		t.Fatal(err)
	}
	if s, d := len(h.fake.callsOf("sendMessage")), len(h.fake.callsOf("sendDocument")); s != 3 || d != 0 {
		t.Fatalf("%d messages, %d documents for 3 pieces with MaxChunks 3", s, d)
	}
	four := strings.Repeat("word ", 3400)
	if err := h.tg.Send(context.Background(), "42", channels.Outbound{Text: four}); err != nil {
		t.Fatal(err)
	}
	if s, d := len(h.fake.callsOf("sendMessage")), len(h.fake.callsOf("sendDocument")); s != 4 || d != 1 {
		t.Fatalf("%d messages, %d documents after a 4-piece reply with MaxChunks 3", s, d)
	}
}

func TestStreamFinishLongReplyGoesAsADocument(t *testing.T) {
	h := newHarness(t, nil, false)
	ctx := context.Background()
	s, _ := h.tg.StartStream(ctx, "42", nil)
	s.Status("working")
	waitFor(t, "status", func() bool { return len(h.fake.callsOf("sendMessage")) == 1 })
	if err := s.Finish(ctx, megabyteAnswer); err != nil {
		t.Fatal(err)
	}
	edits, docs := h.fake.callsOf("editMessageText"), h.fake.callsOf("sendDocument")
	if n := len(h.fake.callsOf("sendMessage")); n != 1 || len(docs) != 1 {
		t.Fatalf("%d messages and %d documents, want the live message edited into the head and one document", n, len(docs))
	}
	if last := edits[len(edits)-1].Params["text"]; !strings.Contains(last, "reply.md") {
		t.Fatalf("the live message ends as %q", last)
	}
	if n := docs[0].Files["document"]; n != len(megabyteAnswer) {
		t.Fatalf("document of %d bytes, want %d", n, len(megabyteAnswer))
	}
}

// fixedClock stands still; after records each wait and fires at once,
// or never when block is set.
type fixedClock struct {
	mu    sync.Mutex
	waits []time.Duration
	block bool
}

func (c *fixedClock) now() time.Time { return time.Unix(1000, 0) }

func (c *fixedClock) after(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.waits = append(c.waits, d)
	ch := make(chan time.Time, 1)
	if !c.block {
		ch <- time.Unix(1000, 0)
	}
	return ch
}

func (c *fixedClock) recorded() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.waits...)
}

// A reply's messages keep to Telegram's pace per chat: a few at once, then
// one a second in a private chat and one every three seconds in a group.
func TestSendPacesEachChat(t *testing.T) {
	for _, tt := range []struct {
		chat string
		want string
	}{
		{"42", "[1s 2s]"},
		{"-100123", "[3s 6s]"},
	} {
		h := newHarness(t, nil, false)
		clk := &fixedClock{}
		h.tg.SetClock(clk.now, clk.after)
		five := strings.Repeat("word ", 4000) // 20,000 characters: 5 pieces
		if err := h.tg.Send(context.Background(), tt.chat, channels.Outbound{Text: five}); err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(clk.recorded()); got != tt.want {
			t.Errorf("chat %s: waits %s, want %s", tt.chat, got, tt.want)
		}
	}
}

// logBuffer is a goroutine-safe log sink.
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Shutdown ends a reply's sending: the pieces not sent yet are not sent,
// and the log says how much of the reply was cut off.
func TestSendStopsWhenContextEnds(t *testing.T) {
	var logs logBuffer
	h := newHarness(t, &telegram.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))}, false)
	clk := &fixedClock{block: true}
	h.tg.SetClock(clk.now, clk.after)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		waitFor(t, "the burst", func() bool { return len(h.fake.callsOf("sendMessage")) == 3 })
		cancel()
	}()
	five := strings.Repeat("word ", 4000)
	done := make(chan error, 1)
	go func() { done <- h.tg.Send(ctx, "42", channels.Outbound{Text: five}) }()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Send = %v, want the context's error", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Send kept going after its context ended")
	}
	if n := len(h.fake.callsOf("sendMessage")); n != 3 {
		t.Fatalf("%d messages sent, want the 3 before shutdown", n)
	}
	if l := logs.String(); !strings.Contains(l, "cut off") || !strings.Contains(l, "pieces_unsent=2") {
		t.Fatalf("no log of the cut-off reply:\n%s", l)
	}
}
