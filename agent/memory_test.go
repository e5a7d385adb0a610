package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
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
	"github.com/joshbot/joshbot/tools"
)

// syncBuffer is a log destination safe for the agent's background work.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func logTo(buf *syncBuffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// seed stores a finished conversation of ten messages, the first exchange
// with a tool call.
func seed(t *testing.T, store *memory.Store, key string) {
	t.Helper()
	ts := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	msgs := []memory.Message{
		{Role: "user", Content: "OLDEST question about apples"},
		{Role: "assistant", ToolCalls: []memory.ToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"a.txt"}`}}},
		{Role: "tool", ToolCallID: "c1", Name: "read_file", Content: "apple data"},
		{Role: "assistant", Content: "apples are red"},
	}
	for i := range 3 {
		msgs = append(msgs, memory.Message{Role: "user", Content: "later question " + string(rune('A'+i))}, memory.Message{Role: "assistant", Content: "later answer"})
	}
	for i := range msgs {
		msgs[i].Time = ts.Add(time.Duration(i) * time.Minute)
	}
	if err := store.Save(&memory.Session{Key: key, Messages: msgs}); err != nil {
		t.Fatal(err)
	}
}

func allContent(msgs []providers.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(m.Content + "\n")
	}
	return b.String()
}

// TestCompactionAtThreshold covers the fallback before the request: a
// session already over the threshold when a turn starts.
func TestCompactionAtThreshold(t *testing.T) {
	// The seeded session with the new message is about 92 estimated
	// tokens, the compacted one after the reply about 71, so only the
	// fallback compacts, not the background after the turn.
	a, srv, store, _ := setup(t, &agent.Options{Memory: agent.MemoryOptions{CompactionThreshold: 80, DisableLearning: true}})
	seed(t, store, "cli:c")
	srv.Enqueue(providertest.Text("SUMMARY-ONE: apples discussed"), providertest.Text("fresh answer"))
	reply, err := a.Process(context.Background(), agent.Request{SessionKey: "cli:c", Text: "newest question"})
	if err != nil || reply.Text != "fresh answer" {
		t.Fatalf("reply %+v %v", reply, err)
	}
	a.Wait()
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	if !strings.Contains(reqs[0].Messages[0].Content, "condense") || !strings.Contains(reqs[0].Messages[1].Content, "OLDEST question") {
		t.Errorf("summary request: %+v", reqs[0].Messages)
	}
	turn := reqs[1].Messages
	if !strings.Contains(turn[0].Content, "<conversation_summary>") || !strings.Contains(turn[0].Content, "SUMMARY-ONE") {
		t.Errorf("system prompt lacks the summary: %s", turn[0].Content)
	}
	if c := allContent(turn); strings.Contains(c, "OLDEST") || !strings.Contains(c, "later question A") || !strings.Contains(c, "newest question") {
		t.Errorf("turn request content:\n%s", c)
	}
	for _, m := range turn {
		if m.Role == "tool" {
			t.Errorf("a tool result was sent without its call: %+v", m)
		}
	}
	sess, _ := store.Load("cli:c")
	if sess.Messages[0].Kind != memory.KindCompaction || sess.Messages[1].Content != "later question A" {
		t.Errorf("session starts %+v", sess.Messages[:2])
	}
	archive, _ := store.ArchivePath("cli:c")
	data, err := os.ReadFile(archive)
	if err != nil || strings.Count(string(data), "\n") != 4 || !strings.Contains(string(data), "OLDEST") {
		t.Errorf("archive %q %v", data, err)
	}
}

func TestCompactionFailureKeepsSessionAndAnswers(t *testing.T) {
	var logs syncBuffer
	a, srv, store, _ := setup(t, &agent.Options{Logger: logTo(&logs), Memory: agent.MemoryOptions{CompactionThreshold: 10, DisableLearning: true}})
	seed(t, store, "cli:f")
	// The summary fails before the request and again in the background
	// after the reply, the session being still over the threshold.
	srv.Enqueue(providertest.Error(400, "context too long"), providertest.Text("still here"), providertest.Error(400, "context too long"))
	reply, err := a.Process(context.Background(), agent.Request{SessionKey: "cli:f", Text: "q"})
	if err != nil || reply.Text != "still here" {
		t.Fatalf("reply %+v %v", reply, err)
	}
	a.Wait()
	sess, _ := store.Load("cli:f")
	if len(sess.Messages) != 12 || sess.Messages[0].Content != "OLDEST question about apples" {
		t.Errorf("session changed: %d messages", len(sess.Messages))
	}
	if n := strings.Count(logs.String(), "compaction failed"); n != 2 {
		t.Errorf("%d log lines for the two failures: %s", n, logs.String())
	}
}

func TestCompactCommand(t *testing.T) {
	a, srv, store, _ := setup(t, &agent.Options{Memory: agent.MemoryOptions{CompactionThreshold: -1, DisableLearning: true}})
	srv.Enqueue()
	reply, err := a.Process(context.Background(), agent.Request{SessionKey: "cli:k", Text: "/compact"})
	if err != nil || !strings.Contains(reply.Text, "Nothing to compact") {
		t.Fatalf("empty session: %+v %v", reply, err)
	}
	seed(t, store, "cli:k")
	srv.Enqueue(providertest.Text("the summary"))
	reply, err = a.Process(context.Background(), agent.Request{SessionKey: "cli:k", Text: " /compact "})
	// The last exchange and the six messages before it stay; the cut
	// moves back past the tool result so the call stays with it.
	if err != nil || !strings.Contains(reply.Text, "Compacted 1 earlier message into") {
		t.Fatalf("reply %+v %v", reply, err)
	}
	sess, _ := store.Load("cli:k")
	if len(sess.Messages) != 10 || sess.Messages[0].Content != "the summary" || len(sess.Messages[1].ToolCalls) != 1 {
		t.Errorf("session %+v", sess.Messages)
	}
	for _, m := range sess.Messages {
		if strings.Contains(m.Content, "/compact") {
			t.Error("the command was stored")
		}
	}
}

func TestStuckSessionIsRepairedBeforeTheRequest(t *testing.T) {
	var logs syncBuffer
	a, srv, store, _ := setup(t, &agent.Options{Logger: logTo(&logs), Memory: agent.MemoryOptions{DisableLearning: true}})
	// A crash left a call without its result and a stray result.
	if err := store.Save(&memory.Session{Key: "cli:s", Messages: []memory.Message{
		{Role: "tool", ToolCallID: "gone", Content: "orphan"},
		{Role: "user", Content: "do it"},
		{Role: "assistant", ToolCalls: []memory.ToolCall{{ID: "x1", Name: "read_file", Arguments: "{}"}}},
	}}); err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(providertest.Text("ok"))
	if _, err := a.Process(context.Background(), agent.Request{SessionKey: "cli:s", Text: "again"}); err != nil {
		t.Fatal(err)
	}
	msgs := srv.Requests()[0].Messages
	var roles []string
	for _, m := range msgs {
		roles = append(roles, m.Role+":"+m.ToolCallID)
	}
	if got := strings.Join(roles, " "); got != "system: user: assistant: tool:x1 user:" {
		t.Errorf("request roles %s", got)
	}
	if !strings.Contains(logs.String(), "repaired the message list") {
		t.Error("no log line for the repair")
	}
	sess, _ := store.Load("cli:s")
	if sess.Messages[0].Content != "orphan" {
		t.Error("the stored session was changed by the repair")
	}
}

func TestLearningIsPerSessionAndNeverFailsTheTurn(t *testing.T) {
	var logs syncBuffer
	ws := t.TempDir()
	lt, err := memory.OpenLongTerm(ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, srv, _, _ := setup(t, &agent.Options{Logger: logTo(&logs), Memory: agent.MemoryOptions{LongTerm: lt}})
	ctx := context.Background()

	srv.Enqueue(providertest.Text("Nice dog!"), providertest.Text("```json\n{\"facts\": [\"The user's dog is named Rex\"]}\n```"))
	if _, err := a.Process(ctx, agent.Request{SessionKey: "telegram:1", Text: "my dog is Rex"}); err != nil {
		t.Fatal(err)
	}
	a.Wait()
	learnReq := srv.Requests()[1]
	if learnReq.Temperature == nil || *learnReq.Temperature != 0 || len(learnReq.Tools) != 0 || !strings.Contains(learnReq.Messages[1].Content, "my dog is Rex") {
		t.Errorf("learning request %+v", learnReq)
	}
	if f, _ := lt.Facts("telegram:1"); len(f) != 1 || f[0] != "The user's dog is named Rex" {
		t.Fatalf("facts %q", f)
	}
	hist, _ := os.ReadFile(lt.HistoryPath())
	if !strings.Contains(string(hist), "telegram:1") || !strings.Contains(string(hist), "user: my dog is Rex") {
		t.Errorf("HISTORY.md %q", hist)
	}

	// Another person: the fact is not in their prompt; a broken learning
	// answer is logged and the reply is unaffected.
	srv.Enqueue(providertest.Text("hello"), providertest.Text("I cannot do JSON"))
	reply, err := a.Process(ctx, agent.Request{SessionKey: "telegram:2", Text: "hi, I am new here"})
	if err != nil || reply.Text != "hello" {
		t.Fatalf("reply %+v %v", reply, err)
	}
	a.Wait()
	if strings.Contains(srv.Requests()[2].Messages[0].Content, "Rex") {
		t.Fatal("one session's learned fact reached another's prompt")
	}
	if !strings.Contains(logs.String(), "learning step failed") {
		t.Errorf("no log for the failed learning step: %s", logs.String())
	}

	// The same person again: the fact is in the prompt; a duplicate is not
	// stored twice.
	srv.Enqueue(providertest.Text("Rex!"), providertest.Text(`{"facts": ["the user's dog is named rex."]}`))
	if _, err := a.Process(ctx, agent.Request{SessionKey: "telegram:1", Text: "name my dog"}); err != nil {
		t.Fatal(err)
	}
	a.Wait()
	if !strings.Contains(srv.Requests()[4].Messages[0].Content, "Rex") {
		t.Error("the session's own fact is missing from its prompt")
	}
	if f, _ := lt.Facts("telegram:1"); len(f) != 1 {
		t.Errorf("duplicate stored: %q", f)
	}
	if m, _ := os.ReadFile(filepath.Join(ws, memory.MemoryFileName)); len(m) != 0 {
		t.Errorf("MEMORY.md was written without LearnShared: %q", m)
	}
}

func TestLearningDisabledStillWritesHistory(t *testing.T) {
	lt, err := memory.OpenLongTerm(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	a, srv, store, _ := setup(t, &agent.Options{Memory: agent.MemoryOptions{LongTerm: lt, DisableLearning: true}})
	srv.Enqueue(providertest.Text("fine"))
	if _, err := a.Process(context.Background(), agent.Request{SessionKey: "cli:x", Text: "note this"}); err != nil {
		t.Fatal(err)
	}
	a.Wait()
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests with learning off", n)
	}
	if res, err := lt.Search("cli:x", "note", 5); err != nil || len(res) != 1 {
		t.Errorf("history search %+v %v", res, err)
	}
	// A plain turn leaves no sidecar, even once the store flushes what it
	// holds (as a program does at exit): a new file per session costs a
	// one-shot turn more than the rest of its bookkeeping, and nothing
	// reads a turn count.
	if err := store.FlushMeta(); err != nil {
		t.Fatal(err)
	}
	if p, _ := store.MetaPath("cli:x"); p == "" {
		t.Fatal("no meta path")
	} else if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Errorf("a plain turn wrote the session's sidecar %s (%v)", p, err)
	}
}

func TestLearningOverflowIsConsolidated(t *testing.T) {
	lt, err := memory.OpenLongTerm(t.TempDir(), &memory.LongTermOptions{MaxBytes: 600})
	if err != nil {
		t.Fatal(err)
	}
	a, srv, _, _ := setup(t, &agent.Options{Memory: agent.MemoryOptions{LongTerm: lt, LearnShared: true}})
	var facts []string
	for i := range 20 {
		facts = append(facts, "The user owns plant number "+strings.Repeat("x", i))
	}
	if _, _, err := lt.AddFacts(memory.SharedScope, facts); err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(providertest.Text("ok"), providertest.Text(`{"facts":["The user likes ferns"]}`),
		providertest.Text(`{"facts":["The user owns twenty plants","The user likes ferns"]}`))
	if _, err := a.Process(context.Background(), agent.Request{SessionKey: "cli:o", Text: "I like ferns"}); err != nil {
		t.Fatal(err)
	}
	a.Wait()
	got, _ := lt.Facts(memory.SharedScope)
	if strings.Join(got, "|") != "The user owns twenty plants|The user likes ferns" {
		t.Errorf("facts after consolidation %q", got)
	}
	res, _ := lt.Search(memory.SharedScope, "plant number", 3)
	if len(res) == 0 {
		t.Error("the pre-consolidation facts are not in HISTORY.md")
	}
}

// whoami reports the session key its context carries.
type whoami struct{}

func (whoami) Name() string                { return "whoami" }
func (whoami) Description() string         { return "who is asking" }
func (whoami) Parameters() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (whoami) Execute(ctx context.Context, _ json.RawMessage) (string, error) {
	return "key=" + tools.SessionKeyFromContext(ctx), nil
}

func TestToolsSeeTheTurnsSessionKey(t *testing.T) {
	srv := providertest.NewServer(t)
	client, err := providers.NewClient(&providers.ClientOptions{BaseURL: srv.URL()})
	if err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry()
	if err := reg.Register(whoami{}); err != nil {
		t.Fatal(err)
	}
	store, _ := memory.NewStore(t.TempDir())
	a, err := agent.New(client, "m", store, &agent.Options{Tools: reg, Memory: agent.MemoryOptions{DisableLearning: true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Wait)
	srv.Enqueue(providertest.ToolCalls(providertest.Call("whoami", `{}`)), providertest.Text("done"))
	if _, err := a.Process(context.Background(), agent.Request{SessionKey: "discord:77", Text: "who?"}); err != nil {
		t.Fatal(err)
	}
	msgs := srv.Requests()[1].Messages
	if got := msgs[len(msgs)-1].Content; got != "key=discord:77" {
		t.Errorf("tool saw %q", got)
	}
}

func TestCompactionByMessageCount(t *testing.T) {
	// Ten seeded messages and the new one are over the limit; the
	// compacted session with the reply (nine) is not, so only the
	// fallback before the request compacts.
	a, srv, store, _ := setup(t, &agent.Options{Limits: agent.LimitOptions{HistoryLimit: 10}, Memory: agent.MemoryOptions{DisableLearning: true}})
	seed(t, store, "cli:n")
	srv.Enqueue(providertest.Text("count summary"), providertest.Text("ok"))
	if _, err := a.Process(context.Background(), agent.Request{SessionKey: "cli:n", Text: "one more"}); err != nil {
		t.Fatal(err)
	}
	a.Wait()
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests, want the summary and the turn", n)
	}
	if sess, _ := store.Load("cli:n"); sess.Messages[0].Content != "count summary" {
		t.Errorf("a session over the history limit was not compacted: %+v", sess.Messages[0])
	}
}

// The learning request goes out while the turn is being saved; when that
// save fails, nothing is learned, counted or written to HISTORY.md.
func TestFailedSaveLearnsAndRecordsNothing(t *testing.T) {
	lt, err := memory.OpenLongTerm(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	a, srv, store, _ := setup(t, &agent.Options{Memory: agent.MemoryOptions{LongTerm: lt}})
	// The sessions directory goes away while the model answers, so the
	// session cannot store the turn; the user's message alone was staged.
	var mu sync.Mutex
	calls := 0
	srv.SetFallback(func(providertest.Request) providertest.Reply {
		mu.Lock()
		defer mu.Unlock()
		calls++
		if calls == 1 {
			os.RemoveAll(store.Dir())
			os.WriteFile(store.Dir(), []byte("not a directory"), 0o600)
			return providertest.Text("everything")
		}
		return providertest.Text(`{"facts": ["The user likes long answers"]}`)
	})
	reply, err := a.Process(context.Background(), agent.Request{SessionKey: "cli:unsaved", Text: "tell me everything"})
	if !errors.Is(err, agent.ErrNotSaved) || reply == nil || reply.Text != "everything" {
		t.Fatalf("reply %+v, err %v: want the answer and the failed save reported", reply, err)
	}
	os.Remove(store.Dir())
	os.MkdirAll(store.Dir(), 0o700)
	a.Wait()
	if f, _ := lt.Facts("cli:unsaved"); len(f) != 0 {
		t.Errorf("learned from an unsaved turn: %q", f)
	}
	if hist, _ := os.ReadFile(lt.HistoryPath()); strings.Contains(string(hist), "tell me everything") {
		t.Errorf("HISTORY.md has the unsaved turn: %q", hist)
	}
}
