package agent_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/providers/providertest"
)

// A model that keeps making the same call after it is refused is stopped
// after a few refusals, without spending the whole iteration budget, and
// the user gets the summary the iteration limit gives.
func TestStubbornModelIsStoppedAfterRefusedRepeats(t *testing.T) {
	a, srv, _, _ := setup(t, &agent.Options{Memory: agent.MemoryOptions{DisableLearning: true}})
	srv.SetFallback(func(providertest.Request) providertest.Reply {
		return providertest.ToolCalls(providertest.Call("read_file", `{"path":"a.txt"}`))
	})
	reply, err := a.Process(context.Background(), agent.Request{SessionKey: "cli:stubborn", Text: "read a.txt"})
	if !errors.Is(err, agent.ErrRepeatedCalls) || !errors.Is(err, agent.ErrIterationLimit) {
		t.Fatalf("err = %v, want ErrRepeatedCalls matching ErrIterationLimit", err)
	}
	// Three calls run, the fourth and fifth are refused, and the turn ends.
	if n := len(srv.Requests()); n != 5 {
		t.Errorf("the model was asked %d times, want 5", n)
	}
	if reply == nil || !strings.Contains(reply.Text, "read_file ×5") || !strings.Contains(reply.Text, "2 repeated identical calls were refused") ||
		!strings.Contains(reply.Text, "LimitOptions.MaxRefusedRepeats") {
		t.Errorf("reply = %+v", reply)
	}
}

// Ctrl-C (a cancelled context) while an answer streams keeps what was
// shown: the session stores it as an interrupted assistant message, the
// reply carries it, and the next turn tells the model it was cut off.
func TestCancelledStreamKeepsTheShownAnswer(t *testing.T) {
	a, srv, store, _ := setup(t, &agent.Options{Memory: agent.MemoryOptions{DisableLearning: true}})
	srv.Enqueue(providertest.Reply{Content: "The first half. The second half.", Chunks: 2, HangAfterChunks: 2})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var shown strings.Builder
	ctx = agent.WithSink(ctx, func(e agent.StreamEvent) {
		if e.Delta != "" {
			shown.WriteString(e.Delta)
			cancel() // the person presses Ctrl-C once text shows
		}
	})
	reply, err := a.Process(ctx, agent.Request{SessionKey: "cli:stop", Text: "tell me"})
	if !errors.Is(err, agent.ErrStopped) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want ErrStopped wrapping context.Canceled", err)
	}
	if shown.Len() == 0 || reply == nil || reply.Text != shown.String() || reply.Interrupted == nil {
		t.Fatalf("reply = %+v, shown %q", reply, shown.String())
	}
	sess, err := store.Load("cli:stop")
	if err != nil {
		t.Fatal(err)
	}
	if got := roles(sess); got != "user,assistant" {
		t.Fatalf("roles %s, want user,assistant", got)
	}
	if m := sess.Messages[1]; m.Kind != memory.KindInterrupted || m.Content != shown.String() {
		t.Fatalf("stored %+v, want the shown text marked interrupted", m)
	}

	srv.Enqueue(providertest.Text("Sorry, here is the rest."))
	if _, err := a.Process(context.Background(), agent.Request{SessionKey: "cli:stop", Text: "go on"}); err != nil {
		t.Fatal(err)
	}
	sent := srv.Requests()[1].Messages
	if len(sent) != 4 || sent[2].Role != "assistant" || !strings.HasPrefix(sent[2].Content, shown.String()) || !strings.Contains(sent[2].Content, "stopped by the user") {
		t.Fatalf("the model was not told the answer was cut off: %+v", sent)
	}
	sess, _ = store.Load("cli:stop")
	if got := roles(sess); got != "user,assistant,user,assistant" {
		t.Fatalf("roles %s", got)
	}
}

// A message over LimitOptions.MaxMessageBytes is kept in a workspace file
// the model can read; the session and the request carry a short reference.
func TestLargeMessageIsStoredAsAFile(t *testing.T) {
	a, srv, store, ws := setup(t, &agent.Options{Memory: agent.MemoryOptions{DisableLearning: true}})
	big := strings.Repeat("0123456789abcdef", (2<<20)/16) // 2 MiB
	srv.Enqueue(providertest.Text("noted"))
	if _, err := a.Process(context.Background(), agent.Request{SessionKey: "cli:big", Text: big}); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(ws, "inbox", "*"))
	if err != nil || len(files) != 1 {
		t.Fatalf("inbox holds %v (%v), want one file", files, err)
	}
	if data, err := os.ReadFile(files[0]); err != nil || string(data) != big {
		t.Fatalf("the stored file differs from the message (%d bytes, %v)", len(data), err)
	}
	rel, _ := filepath.Rel(ws, files[0])
	if n := len(srv.Requests()[0].Raw); n > 64<<10 {
		t.Errorf("the request is %d bytes", n)
	}
	sess, err := store.Load("cli:big")
	if err != nil {
		t.Fatal(err)
	}
	if m := sess.Messages[0]; len(m.Content) > 8<<10 || !strings.Contains(m.Content, rel) {
		t.Errorf("the session's message (%d bytes) does not reference %s: %.300s", len(m.Content), rel, m.Content)
	}
}

// Without a workspace a message over the cap is refused, naming the
// option, and neither the session nor the provider sees it.
func TestLargeMessageRefusedWithoutWorkspace(t *testing.T) {
	srv := providertest.NewServer(t)
	client, err := providers.NewClient(&providers.ClientOptions{BaseURL: srv.URL()})
	if err != nil {
		t.Fatal(err)
	}
	store, err := memory.NewStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(client, "m", store, &agent.Options{Limits: agent.LimitOptions{MaxMessageBytes: 1000}, Memory: agent.MemoryOptions{DisableLearning: true}})
	if err != nil {
		t.Fatal(err)
	}
	reply, err := a.Process(context.Background(), agent.Request{SessionKey: "cli:big", Text: strings.Repeat("x", 1001)})
	if !errors.Is(err, agent.ErrMessageTooLarge) || reply == nil || !strings.Contains(reply.Text, "LimitOptions.MaxMessageBytes") {
		t.Fatalf("reply %+v, err %v", reply, err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("the provider was asked %d times", n)
	}
	if sess, _ := store.Load("cli:big"); len(sess.Messages) != 0 {
		t.Errorf("the session holds %d messages", len(sess.Messages))
	}
}

// A session whose recent messages are each far larger than the model's
// context window still yields a request that fits it.
func TestRequestFitsTheContextWindow(t *testing.T) {
	const window = 32_000
	a, srv, store, _ := setup(t, &agent.Options{
		Requests: agent.RequestOptions{ContextWindow: window},
		Memory:   agent.MemoryOptions{DisableLearning: true, CompactionThreshold: -1},
	})
	huge := strings.Repeat("lorem ipsum ", (1<<20)/12)
	var msgs []memory.Message
	for i := range 6 {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		msgs = append(msgs, memory.Message{Role: role, Content: huge})
	}
	if err := store.Save(&memory.Session{Key: "cli:huge", Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(providertest.Text("fine"))
	if _, err := a.Process(context.Background(), agent.Request{SessionKey: "cli:huge", Text: "and now?"}); err != nil {
		t.Fatal(err)
	}
	req := srv.Requests()[0]
	if n := len(req.Raw); n/4 >= window {
		t.Errorf("the request is %d bytes, about %d tokens, for a %d-token window", n, n/4, window)
	}
	if last := req.Messages[len(req.Messages)-1]; last.Content != "and now?" {
		t.Errorf("the turn's own message was not sent last: %.80q", last.Content)
	}
}

// While the model has not started answering, the sink hears that the turn
// is waiting, so a terminal can show a spinner and a chat a typing status.
func TestWaitingEventsUntilTheAnswerBegins(t *testing.T) {
	a, srv, _, _ := setup(t, &agent.Options{
		Requests: agent.RequestOptions{WaitingNotice: 20 * time.Millisecond},
		Memory:   agent.MemoryOptions{DisableLearning: true},
	})
	srv.Enqueue(providertest.Reply{Content: "slow answer", Delay: 200 * time.Millisecond})
	var mu sync.Mutex
	var kinds []string
	ctx := agent.WithSink(context.Background(), func(e agent.StreamEvent) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case e.Waiting > 0:
			kinds = append(kinds, "waiting")
		case e.Delta != "":
			kinds = append(kinds, "delta")
		case e.Done:
			kinds = append(kinds, "done")
		}
	})
	if _, err := a.Process(ctx, agent.Request{SessionKey: "cli:wait", Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // a late waiting event would show here
	mu.Lock()
	defer mu.Unlock()
	got := strings.Join(kinds, ",")
	first := strings.Index(got, "delta")
	if !strings.HasPrefix(got, "waiting") || first < 0 || strings.Contains(got[first:], "waiting") || !strings.HasSuffix(got, "done") {
		t.Errorf("events %s, want waiting events, then the answer, then done", got)
	}
}

// A single provider that goes silent fails the turn after its first-byte
// limit, without a second, unbounded non-streamed try.
func TestSilentProviderFailsAfterFirstByteTimeout(t *testing.T) {
	srv := providertest.NewServer(t)
	client, err := providers.NewClient(&providers.ClientOptions{Name: "silent", BaseURL: srv.URL(), Timeout: 2 * time.Second, FirstByteTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	store, err := memory.NewStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(client, "m", store, &agent.Options{Memory: agent.MemoryOptions{DisableLearning: true}})
	if err != nil {
		t.Fatal(err)
	}
	srv.SetFallback(func(providertest.Request) providertest.Reply { return providertest.Reply{HangAfterHeaders: true} })
	ctx := agent.WithSink(context.Background(), func(agent.StreamEvent) {})
	start := time.Now()
	_, err = a.Process(ctx, agent.Request{SessionKey: "cli:silent", Text: "hi"})
	var te *providers.TransportError
	if !errors.As(err, &te) || !te.FirstByte {
		t.Fatalf("err = %v, want the first-byte timeout", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("took %s", took)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("the provider was asked %d times, want 1", n)
	}
}

// A session over the budget of a small context window is compacted before
// the turn, though it is under CompactionThreshold, and the summarizing
// request fits the window too.
func TestSmallWindowCompactsFirst(t *testing.T) {
	const window = 8_000
	a, srv, store, _ := setup(t, &agent.Options{
		Requests: agent.RequestOptions{ContextWindow: window},
		Memory:   agent.MemoryOptions{DisableLearning: true},
	})
	var msgs []memory.Message
	for i := range 40 {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		msgs = append(msgs, memory.Message{Role: role, Content: strings.Repeat("word ", 1200)})
	}
	if err := store.Save(&memory.Session{Key: "cli:small", Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	srv.SetFallback(func(providertest.Request) providertest.Reply { return providertest.Text("a summary or an answer") })
	if _, err := a.Process(context.Background(), agent.Request{SessionKey: "cli:small", Text: "next"}); err != nil {
		t.Fatal(err)
	}
	a.Wait() // a compaction after the turn may follow
	reqs := srv.Requests()
	if len(reqs) < 2 || !strings.HasPrefix(reqs[0].Messages[0].Content, "You condense") {
		t.Fatalf("%d requests, want the summary first, then the turn", len(reqs))
	}
	for i, r := range reqs {
		if n := len(r.Raw); n/4 >= window {
			t.Errorf("request %d is %d bytes, about %d tokens, for a %d-token window", i, n, n/4, window)
		}
	}
	sess, _ := store.Load("cli:small")
	if len(sess.Messages) == 0 || sess.Messages[0].Kind != memory.KindCompaction {
		t.Errorf("the session was not compacted")
	}
}
