package channels_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/joshbot/joshbot/bus"
	"github.com/joshbot/joshbot/channels"
)

// fakeClock stands still; After records each wait and fires at once, or
// never when block is set.
type fakeClock struct {
	now   time.Time
	waits []time.Duration
	block bool
}

func (c *fakeClock) Now() time.Time { return c.now }

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.waits = append(c.waits, d)
	ch := make(chan time.Time, 1)
	if !c.block {
		ch <- c.now
	}
	return ch
}

func TestPacerAllowsABurstThenPaces(t *testing.T) {
	clk := &fakeClock{now: time.Unix(1000, 0)}
	p := channels.NewPacer(&channels.PacerOptions{Every: time.Second, Burst: 3, Now: clk.Now, After: clk.After})
	ctx := context.Background()
	for i := 0; i < 6; i++ {
		if err := p.Wait(ctx, "chat"); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := fmt.Sprint(clk.waits), "[1s 2s 3s]"; got != want {
		t.Fatalf("waits %s, want %s (three at once, then one a second)", got, want)
	}
	// Another conversation has its own allowance.
	p.Wait(ctx, "other")
	if len(clk.waits) != 3 {
		t.Fatalf("a second conversation waited: %v", clk.waits)
	}
	// Time refills the allowance.
	clk.now = clk.now.Add(time.Minute)
	p.Wait(ctx, "chat")
	if len(clk.waits) != 3 {
		t.Fatalf("waited after a quiet minute: %v", clk.waits)
	}
}

func TestPacerWaitEndsWithContext(t *testing.T) {
	clk := &fakeClock{now: time.Unix(1000, 0), block: true}
	p := channels.NewPacer(&channels.PacerOptions{Every: time.Hour, Now: clk.Now, After: clk.After})
	ctx, cancel := context.WithCancel(context.Background())
	if err := p.Wait(ctx, "chat"); err != nil {
		t.Fatal(err)
	}
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	if err := p.Wait(ctx, "chat"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait = %v, want the context's error", err)
	}
	var nilPacer *channels.Pacer
	if err := nilPacer.Wait(context.Background(), "chat"); err != nil {
		t.Fatalf("a nil pacer waited: %v", err)
	}
}

func TestLongReply(t *testing.T) {
	short := channels.Outbound{Text: "hi", ReplyTo: "7"}
	if out, cut, long := channels.LongReply(short, 8, 8, 0); long || cut != 0 || out.Text != "hi" || len(out.Files) != 0 {
		t.Fatalf("a reply within the cap was rewritten: %+v", out)
	}
	text := strings.Repeat("a long line of the answer\n", 40000) // about 1 MB
	extra := bus.Attachment{Name: "chart.png", Data: []byte("png")}
	out, cut, long := channels.LongReply(channels.Outbound{Text: text, ReplyTo: "7", Files: []bus.Attachment{extra}}, 260, 0, 0)
	if !long || cut != 0 {
		t.Fatalf("long=%v cut=%d", long, cut)
	}
	if len(out.Files) != 2 || out.Files[0].Name != channels.ReplyDocumentName || string(out.Files[0].Data) != text || out.Files[1].Name != "chart.png" {
		t.Fatalf("files %+v, want the whole text as %s, then the reply's own files", out.Files, channels.ReplyDocumentName)
	}
	if out.ReplyTo != "7" || len(out.Text) > 2000 || !strings.HasPrefix(out.Text, "a long line of the answer\n") || !strings.Contains(out.Text, "attached as reply.md") {
		t.Fatalf("head %q", out.Text)
	}
	// Over the upload limit: the document holds what fits, cut between runes.
	text = strings.Repeat("é", 1000) // 2,000 bytes
	out, cut, _ = channels.LongReply(channels.Outbound{Text: text}, 9, 8, 999)
	if doc := out.Files[0].Data; len(doc) != 998 || cut != 1002 || !strings.Contains(out.Text, "first 998 bytes") {
		t.Fatalf("doc %d bytes, cut %d, head %q", len(doc), cut, out.Text)
	}
}

// Making the head of a huge reply costs no more than of a small one: it
// used to split the whole text, 20 s for 8 MiB.
func TestLongReplyOfAHugeTextIsQuick(t *testing.T) {
	text := strings.Repeat("a line of a very long answer, over and over\n", (8<<20)/44)
	start := time.Now()
	out, _, long := channels.LongReply(channels.Outbound{Text: text}, 9, 8, 0)
	if d := time.Since(start); d > time.Second {
		t.Fatalf("LongReply of 8 MiB took %v", d)
	}
	if !long || len(out.Files[0].Data) != len(text) {
		t.Fatal("not rewritten")
	}
}
