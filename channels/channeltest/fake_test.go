package channeltest_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/joshbot/joshbot/bus"
	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/channels/channeltest"
)

// fakePlatform runs the Fake through the conformance suite every adapter
// passes, so the gateway's tests stand on a channel that keeps the
// contract.
type fakePlatform struct{ f *channeltest.Fake }

func (p fakePlatform) Channel() channels.Channel         { return p.f }
func (p fakePlatform) Conversation(sender string) string { return "dm-" + sender }
func (p fakePlatform) Limit() int                        { return channeltest.FakeMessageLimit }

func (p fakePlatform) Inject(_ *testing.T, m channeltest.Message) {
	p.f.Inject(channels.Inbound{
		Conversation: p.Conversation(m.Sender), Principal: m.Sender, Text: m.Text,
		MessageID: fmt.Sprint(m.Seq), IsDirect: true,
	})
}

func (p fakePlatform) Acked(_ *testing.T, seq int) (bool, bool) {
	for _, inb := range p.f.Record().Delivered {
		if inb.MessageID == fmt.Sprint(seq) {
			return true, true
		}
	}
	return false, true
}

func (p fakePlatform) Drop(t *testing.T) {
	n := p.f.Record().Reconnects
	p.f.Disconnect()
	p.f.Await(t, "the reconnection", func(r channeltest.Record) bool { return r.Reconnects > n })
}

func (p fakePlatform) Sent(_ *testing.T, conversation string) []string {
	var out []string
	for _, s := range p.f.Record().Sent {
		if s.Conversation == conversation {
			out = append(out, s.Pieces...)
		}
	}
	return out
}

func TestFakePassesTheConformanceSuite(t *testing.T) {
	channeltest.Run(t, func(t *testing.T) channeltest.Platform { return fakePlatform{channeltest.NewFake()} })
}

// run runs f.Start with sink until the test ends, and checks it returned
// ctx.Err().
func run(t *testing.T, f *channeltest.Fake, sink channels.Sink) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.Start(ctx, sink) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("Start = %v after its context ended, want context.Canceled", err)
		}
	})
}

func TestFakeDeliversInOrderAndRedeliversARefusal(t *testing.T) {
	f := channeltest.NewFakeNamed("telegram")
	var mu sync.Mutex
	var tries []string
	refuse := 1
	run(t, f, sinkFunc(func(_ context.Context, inb channels.Inbound) error {
		mu.Lock()
		defer mu.Unlock()
		tries = append(tries, inb.Text)
		if refuse > 0 {
			refuse--
			return errors.New("inbox unavailable")
		}
		return nil
	}))
	f.Inject(channels.Inbound{Conversation: "c", Principal: "p", Text: "one", MessageID: "1"})
	f.Inject(channels.Inbound{Conversation: "c", Principal: "p", Text: "two", MessageID: "2"})
	rec := f.Await(t, "both messages", func(r channeltest.Record) bool { return len(r.Delivered) == 2 })
	if rec.Refused != 1 || rec.Delivered[0].Text != "one" || rec.Delivered[1].Text != "two" {
		t.Fatalf("record %v, delivered %+v: want one refusal, then one and two in order", rec, rec.Delivered)
	}
	if rec.Delivered[0].Channel != "telegram" {
		t.Errorf("Channel = %q, want the fake's name filled in", rec.Delivered[0].Channel)
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(tries, ",") != "one,one,two" {
		t.Errorf("Deliver saw %q, want the refused message again before the next", tries)
	}
}

func TestFakeStartOnceAtATime(t *testing.T) {
	f := channeltest.NewFake()
	run(t, f, sinkFunc(func(context.Context, channels.Inbound) error { return nil }))
	f.Inject(channels.Inbound{Conversation: "c", Text: "x"})
	f.Await(t, "Start running", func(r channeltest.Record) bool { return len(r.Delivered) == 1 })
	if err := f.Start(context.Background(), nil); err == nil {
		t.Fatal("a second Start while the first runs succeeded")
	}
}

func TestFakeRecordsSends(t *testing.T) {
	f := channeltest.NewFake()
	ctx := context.Background()
	long := strings.Repeat("word ", 1000) // 5,000 runes: two pieces
	files := []bus.Attachment{{Name: "a.txt", Data: []byte("hi")}}
	if err := f.Send(ctx, "c1", channels.Outbound{Text: long, ReplyTo: "m1", Files: files}); err != nil {
		t.Fatal(err)
	}
	files[0].Name = "changed by the caller"
	if err := f.Send(ctx, "", channels.Outbound{Text: "x"}); err == nil {
		t.Error("Send to an empty conversation succeeded")
	}
	rec := f.Record()
	if len(rec.Sent) != 1 || rec.Sent[0].Message.ReplyTo != "m1" || len(rec.Sent[0].Pieces) != 2 || strings.Join(rec.Sent[0].Pieces, "") != long {
		t.Fatalf("sent %+v", rec.Sent)
	}
	if got := rec.SentTo("c1"); len(got) != 1 || got[0].Files[0].Name != "a.txt" {
		t.Errorf("SentTo = %+v, want the message with its file as sent", got)
	}
}

func TestFakeTyping(t *testing.T) {
	f := channeltest.NewFake()
	var ty channels.TypingIndicator = f
	stop := ty.Typing(context.Background(), "c1")
	if rec := f.Record(); len(rec.Typing) != 1 || rec.Typing[0].Stopped || rec.Typing[0].Conversation != "c1" {
		t.Fatalf("typing = %+v, want one running indicator in c1", rec.Typing)
	}
	stop()
	stop()
	if rec := f.Record(); !rec.Typing[0].Stopped {
		t.Fatal("the indicator did not stop")
	}
	ctx, cancel := context.WithCancel(context.Background())
	ty.Typing(ctx, "c2")
	cancel()
	f.Await(t, "the indicator to stop with its context", func(r channeltest.Record) bool { return len(r.Typing) == 2 && r.Typing[1].Stopped })
}

func TestFakeStream(t *testing.T) {
	f := channeltest.NewFake()
	var st channels.Streamer = f
	ctx := context.Background()
	stops := 0
	s, err := st.StartStream(ctx, "c1", &channels.StreamOptions{ReplyTo: "m1", Cancel: func() { stops++ }})
	if err != nil {
		t.Fatal(err)
	}
	s.Status("⚙️ shell: ls")
	s.Update("Hel")
	s.Update("Hello")
	s.Status("")
	rec := f.Record().Streams[0]
	if !rec.Stoppable || rec.ReplyTo != "m1" || strings.Join(rec.Updates, "|") != "Hel|Hello" || len(rec.Statuses) != 2 || rec.Finished {
		t.Fatalf("stream = %+v", rec)
	}
	if !rec.PressStop() || stops != 1 {
		t.Fatalf("PressStop did not call Cancel (%d calls)", stops)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel() // Finish runs even so: what was written needs a home
	if err := s.Finish(cancelled, "Hello world"); err != nil {
		t.Fatal(err)
	}
	if err := s.Finish(ctx, "again"); err != nil {
		t.Fatal(err)
	}
	rec = f.Record().Streams[0]
	if !rec.Finished || rec.Final != "Hello world" {
		t.Fatalf("finished stream = %+v, want the first Finish's text", rec)
	}
	if rec.PressStop() || stops != 1 {
		t.Fatal("the stop control still works after Finish")
	}
	plain, _ := st.StartStream(ctx, "c1", nil)
	plain.Finish(ctx, "")
	if rec := f.Record().Streams[1]; rec.Stoppable || rec.PressStop() {
		t.Error("a stream without Cancel has a stop control")
	}
	if s, err := st.StartStream(ctx, "", nil); err == nil || s != nil {
		t.Errorf("StartStream with no conversation = %v, %v", s, err)
	}
}

func TestFakePickerPickComesBackAsAMessage(t *testing.T) {
	f := channeltest.NewFake()
	got := make(chan channels.Inbound, 1)
	run(t, f, sinkFunc(func(_ context.Context, inb channels.Inbound) error { got <- inb; return nil }))
	var p channels.Picker = f
	ctx := context.Background()
	if err := p.SendPicker(ctx, "c1", "Tap to switch:", nil, ""); err == nil {
		t.Error("a picker with no choices was accepted")
	}
	choices := []channels.Choice{{Label: "A", Value: "/model a"}, {Label: "B", Value: "/model b"}}
	if err := p.SendPicker(ctx, "c1", "Tap to switch:", choices, "m1"); err != nil {
		t.Fatal(err)
	}
	pk := f.Record().Pickers[0]
	if pk.Title != "Tap to switch:" || pk.ReplyTo != "m1" || len(pk.Choices) != 2 {
		t.Fatalf("picker = %+v", pk)
	}
	if err := pk.Pick("u1", 2); err == nil {
		t.Error("picking a choice that does not exist succeeded")
	}
	if err := pk.Pick("u1", 1); err != nil {
		t.Fatal(err)
	}
	inb := <-got
	if inb.Text != "/model b" || inb.Principal != "u1" || inb.Conversation != "c1" || !inb.Mentioned || inb.MessageID == "" || inb.Channel != "fake" {
		t.Fatalf("the pick arrived as %+v", inb)
	}
}

func TestFakeCommandMenu(t *testing.T) {
	f := channeltest.NewFake()
	var m channels.CommandMenu = f
	ctx := context.Background()
	if err := m.SetCommands(ctx, []channels.Command{{Name: "new", Description: "Start over"}, {Name: "model", Description: ""}}); err == nil || !strings.Contains(err.Error(), "model") {
		t.Fatalf("a command with no description = %v, want an error naming it", err)
	}
	if err := m.SetCommands(ctx, []channels.Command{{Name: "/new", Description: "x"}}); err == nil {
		t.Fatal("a name with its slash was accepted")
	}
	menu := []channels.Command{{Name: "new", Description: "Start over"}}
	if err := m.SetCommands(ctx, menu); err != nil {
		t.Fatal(err)
	}
	menu[0].Name = "changed"
	if got := f.Record().Menus; len(got) != 1 || got[0][0].Name != "new" {
		t.Fatalf("menus = %+v, want the one valid menu as published", got)
	}
}

func TestFakeApproval(t *testing.T) {
	f := channeltest.NewFake()
	var a channels.ApprovalPrompter = f
	for _, want := range []channels.Decision{channels.DecisionAllow, channels.DecisionDeny, channels.DecisionAllowSession} {
		got := make(chan channels.Decision, 1)
		go func() {
			d, err := a.Approve(context.Background(), "c1", "r-"+want.String(), "Run `ls`?", true)
			if err != nil {
				t.Error(err)
			}
			got <- d
		}()
		rec := f.Await(t, "the prompt", func(r channeltest.Record) bool { return len(r.PendingApprovals()) == 1 })
		p := rec.PendingApprovals()[0]
		if p.RequestID != "r-"+want.String() || p.Prompt != "Run `ls`?" || !p.OfferSession {
			t.Fatalf("prompt = %+v", p)
		}
		if !p.Answer(want) {
			t.Fatal("Answer refused a pending prompt")
		}
		if p.Answer(channels.DecisionAllow) {
			t.Fatal("a prompt was answered twice")
		}
		if d := <-got; d != want {
			t.Fatalf("Approve = %v, want %v", d, want)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	d, err := a.Approve(ctx, "c1", "late", "ok?", false)
	if d != channels.DecisionDeny || err != nil {
		t.Fatalf("Approve past its deadline = %v, %v; want a denial and no error", d, err)
	}
	last := f.Record().Approvals[3]
	if !last.Expired || last.Answered || last.Answer(channels.DecisionAllow) {
		t.Fatalf("expired prompt = %+v, and it must not take a late answer", last)
	}
	if _, err := a.Approve(context.Background(), "", "r", "ok?", false); err == nil {
		t.Fatal("Approve with no conversation succeeded")
	}
}

func TestFakeWaitReportsWhatItSawOnTimeout(t *testing.T) {
	f := channeltest.NewFake()
	f.Send(context.Background(), "c1", channels.Outbound{Text: "hi"})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	_, err := f.Wait(ctx, func(r channeltest.Record) bool { return len(r.Sent) == 2 })
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "1 sent") {
		t.Fatalf("Wait = %v, want the deadline and a summary naming the one send", err)
	}
}

func TestFakeWaitWakesOnChange(t *testing.T) {
	f := channeltest.NewFake()
	const n = 50
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f.Send(context.Background(), "c1", channels.Outbound{Text: fmt.Sprint(i)})
		}()
	}
	rec := f.Await(t, "every concurrent send", func(r channeltest.Record) bool { return len(r.Sent) == n })
	wg.Wait()
	seen := map[string]bool{}
	for _, s := range rec.Sent {
		seen[s.Message.Text] = true
	}
	if len(seen) != n {
		t.Fatalf("%d distinct sends recorded, want %d", len(seen), n)
	}
}
