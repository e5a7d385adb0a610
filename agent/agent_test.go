package agent_test

import (
	"context"
	"encoding/json"
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
	"github.com/joshbot/joshbot/tools"
)

// setup returns an agent wired to a scripted provider server, a workspace
// with the file a.txt, and the session store.
func setup(t *testing.T, opts *agent.Options) (*agent.Agent, *providertest.Server, *memory.Store, string) {
	t.Helper()
	srv := providertest.NewServer(t)
	client, err := providers.NewClient(&providers.ClientOptions{Name: "scripted", BaseURL: srv.URL(), APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("the secret word is pumpkin\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry()
	if err := tools.RegisterFilesystem(reg, ws); err != nil {
		t.Fatal(err)
	}
	store, err := memory.NewStore(filepath.Join(t.TempDir(), "sessions"))
	if err != nil {
		t.Fatal(err)
	}
	if opts == nil {
		opts = &agent.Options{}
	}
	opts.Requests.ProviderName = "scripted"
	opts.Tools, opts.Workspace = reg, ws
	a, err := agent.New(client, "test-model", store, opts)
	if err != nil {
		t.Fatal(err)
	}
	// Background work after turns writes into the temporary directories.
	t.Cleanup(a.Wait)
	return a, srv, store, ws
}

func roles(s *memory.Session) string {
	var r []string
	for _, m := range s.Messages {
		r = append(r, m.Role)
	}
	return strings.Join(r, ",")
}

func TestToolCallResultReachesModelAndSessionHoldsExchange(t *testing.T) {
	a, srv, store, ws := setup(t, nil)
	srv.Enqueue(
		providertest.ToolCalls(providertest.Call("read_file", `{"path":"a.txt"}`)),
		providertest.ToolCalls(providertest.Call("write_file", `{"path":"scratch/b.txt","content":"written by the model"}`)),
		providertest.Text("The word is pumpkin."),
	)
	reply, err := a.Process(context.Background(), agent.Request{SessionKey: "cli:t", Text: "what is the word?", Channel: "cli"})
	if err != nil {
		t.Fatal(err)
	}
	if reply.Text != "The word is pumpkin." || reply.Iterations != 3 || reply.ToolCalls != 2 {
		t.Fatalf("reply = %+v", reply)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("provider got %d requests, want 3", len(reqs))
	}
	second := reqs[1].Messages
	last := second[len(second)-1]
	if last.Role != providers.RoleTool || !strings.Contains(last.Content, "pumpkin") || last.ToolCallID == "" {
		t.Fatalf("second request does not end with the read_file result: %+v", last)
	}
	if second[0].Role != providers.RoleSystem || second[1].Content != "what is the word?" {
		t.Fatalf("second request starts wrong: %+v", second[:2])
	}
	if len(reqs[0].Tools) < 6 {
		t.Fatalf("tools not offered to the model: %d", len(reqs[0].Tools))
	}
	if b, err := os.ReadFile(filepath.Join(ws, "scratch", "b.txt")); err != nil || string(b) != "written by the model" {
		t.Fatalf("write_file did not run: %q, %v", b, err)
	}
	sess, err := store.Load("cli:t")
	if err != nil {
		t.Fatal(err)
	}
	if got := roles(sess); got != "user,assistant,tool,assistant,tool,assistant" {
		t.Fatalf("session roles = %s", got)
	}
	if sess.Messages[1].ToolCalls[0].Name != "read_file" || sess.Messages[5].Content != "The word is pumpkin." {
		t.Fatalf("session content wrong: %+v", sess.Messages)
	}

	// The next turn carries the whole history.
	srv.Enqueue(providertest.Text("again"))
	if _, err := a.Process(context.Background(), agent.Request{SessionKey: "cli:t", Text: "and?"}); err != nil {
		t.Fatal(err)
	}
	reqs = srv.Requests()
	if n := len(reqs[3].Messages); n != 8 {
		t.Fatalf("third turn sent %d messages, want system + 6 stored + new user = 8", n)
	}
}

func TestModelMistakesBecomeToolErrors(t *testing.T) {
	a, srv, _, _ := setup(t, nil)
	srv.Enqueue(
		providertest.ToolCalls(
			providertest.Call("no_such_tool", `{}`),
			providertest.Call("read_file", `{"path": "a.txt"`),
			providertest.Call("read_file", `{"path":"../../etc/passwd"}`),
		),
		providertest.Text("sorry"),
	)
	reply, err := a.Process(context.Background(), agent.Request{SessionKey: "cli:m", Text: "go"})
	if err != nil {
		t.Fatal(err)
	}
	if reply.Text != "sorry" {
		t.Fatalf("reply = %q", reply.Text)
	}
	msgs := srv.Requests()[1].Messages
	results := msgs[len(msgs)-3:]
	for i, want := range []string{"unknown tool", "malformed tool arguments", "outside the workspace"} {
		if results[i].Role != providers.RoleTool || !strings.HasPrefix(results[i].Content, "Error: ") || !strings.Contains(results[i].Content, want) {
			t.Errorf("result %d = %q, want an error containing %q", i, results[i].Content, want)
		}
	}
}

func TestProviderFailureKeepsUserMessage(t *testing.T) {
	a, srv, store, _ := setup(t, nil)
	srv.Enqueue(providertest.Error(401, "Invalid API key"))
	reply, err := a.Process(context.Background(), agent.Request{SessionKey: "cli:f", Text: "remember me"})
	if err == nil {
		t.Fatal("want an error")
	}
	for _, want := range []string{"scripted", "401", "Invalid API key"} {
		if !strings.Contains(err.Error(), want) || !strings.Contains(reply.Text, want) {
			t.Errorf("error %q / reply %q should name %q", err, reply.Text, want)
		}
	}
	if strings.Contains(reply.Text, "\n") {
		t.Errorf("reply is not one line: %q", reply.Text)
	}
	sess, _ := store.Load("cli:f")
	if len(sess.Messages) != 1 || sess.Messages[0].Content != "remember me" {
		t.Fatalf("session = %+v, want the user's message", sess.Messages)
	}
}

func TestIterationLimitIsNamedAndProgressSaved(t *testing.T) {
	a, srv, store, _ := setup(t, &agent.Options{Limits: agent.LimitOptions{MaxIterations: 2}})
	srv.Enqueue(
		providertest.ToolCalls(providertest.Call("list_dir", `{}`)),
		providertest.ToolCalls(providertest.Call("read_file", `{"path":"a.txt"}`)),
	)
	reply, err := a.Process(context.Background(), agent.Request{SessionKey: "cli:l", Text: "loop"})
	if !errors.Is(err, agent.ErrIterationLimit) {
		t.Fatalf("err = %v, want ErrIterationLimit", err)
	}
	if !strings.Contains(reply.Text, "LimitOptions.MaxIterations") || !strings.Contains(err.Error(), "LimitOptions.MaxIterations") {
		t.Fatalf("limit not named: %q / %v", reply.Text, err)
	}
	sess, _ := store.Load("cli:l")
	if got := roles(sess); got != "user,assistant,tool,assistant,tool" {
		t.Fatalf("saved roles = %s", got)
	}
}

// blockingProvider answers nothing until the context ends.
type blockingProvider struct{}

func (blockingProvider) Chat(ctx context.Context, _ *providers.Request) (*providers.Response, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func (p blockingProvider) ChatStream(ctx context.Context, r *providers.Request, _ func(providers.Delta)) (*providers.Response, error) {
	return p.Chat(ctx, r)
}

func TestTurnTimeoutIsNamedAndUserMessageSaved(t *testing.T) {
	store, err := memory.NewStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(blockingProvider{}, "m", store, &agent.Options{Limits: agent.LimitOptions{Timeout: 50 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Wait)
	start := time.Now()
	reply, err := a.Process(context.Background(), agent.Request{SessionKey: "cli:slow", Text: "hello"})
	if !errors.Is(err, agent.ErrTurnTimeout) {
		t.Fatalf("err = %v, want ErrTurnTimeout", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatal("timeout not honoured")
	}
	if !strings.Contains(reply.Text, "LimitOptions.Timeout") {
		t.Fatalf("reply does not name the key: %q", reply.Text)
	}
	sess, _ := store.Load("cli:slow")
	if len(sess.Messages) != 1 {
		t.Fatalf("session = %+v", sess.Messages)
	}
}

func TestStreamingSinkGetsDeltasInOrder(t *testing.T) {
	a, srv, _, _ := setup(t, nil)
	srv.Enqueue(
		providertest.Reply{Content: "Let me look.", ToolCalls: []providers.ToolCall{providertest.Call("read_file", `{"path":"a.txt"}`)}},
		providertest.Reply{Content: "It is pumpkin, as the file says.", Chunks: 5},
	)
	var got strings.Builder
	var events []agent.StreamEvent
	ctx := agent.WithSink(context.Background(), func(ev agent.StreamEvent) {
		events = append(events, ev)
		got.WriteString(ev.Delta)
	})
	reply, err := a.Process(ctx, agent.Request{SessionKey: "cli:s", Text: "word?"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "Let me look.\n\nIt is pumpkin, as the file says."; got.String() != want {
		t.Fatalf("streamed %q, want %q", got.String(), want)
	}
	if reply.Text != "It is pumpkin, as the file says." {
		t.Fatalf("reply = %q", reply.Text)
	}
	if len(events) < 4 || !events[len(events)-1].Done {
		t.Fatalf("want several deltas and a final Done, got %+v", events)
	}
	for _, r := range srv.Requests() {
		if !r.Stream {
			t.Fatal("a request with a sink attached was not streamed")
		}
	}
}

func TestNoSinkMeansNoStreaming(t *testing.T) {
	a, srv, _, _ := setup(t, nil)
	srv.Enqueue(providertest.Text("plain"))
	if _, err := a.Process(context.Background(), agent.Request{SessionKey: "cli:n", Text: "x"}); err != nil {
		t.Fatal(err)
	}
	if srv.Requests()[0].Stream {
		t.Fatal("streamed without a sink")
	}
}

func TestStreamDeathBeforeTextRetriesWithoutStreaming(t *testing.T) {
	a, srv, _, _ := setup(t, nil)
	srv.Enqueue(
		providertest.Reply{Content: "never shown", DieAfterChunks: 1},
		providertest.Text("recovered answer"),
	)
	var got strings.Builder
	ctx := agent.WithSink(context.Background(), func(ev agent.StreamEvent) { got.WriteString(ev.Delta) })
	reply, err := a.Process(ctx, agent.Request{SessionKey: "cli:r", Text: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if reply.Text != "recovered answer" || got.String() != "recovered answer" {
		t.Fatalf("reply %q, streamed %q", reply.Text, got.String())
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || !reqs[0].Stream || reqs[1].Stream {
		t.Fatalf("want a stream then a plain retry, got %d requests", len(reqs))
	}
}

func TestStreamDeathAfterTextIsATypedEvent(t *testing.T) {
	a, srv, store, _ := setup(t, nil)
	srv.Enqueue(providertest.Reply{Content: "first part, second part, third part", Chunks: 3, DieAfterChunks: 2})
	var got strings.Builder
	var streamErr error
	ctx := agent.WithSink(context.Background(), func(ev agent.StreamEvent) {
		got.WriteString(ev.Delta)
		if ev.Err != nil {
			streamErr = ev.Err
		}
	})
	reply, err := a.Process(ctx, agent.Request{SessionKey: "cli:d", Text: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(streamErr, providers.ErrStreamInterrupted) || reply.Interrupted != streamErr {
		t.Fatalf("sink error %v, reply.Interrupted %v; want both the provider's ErrStreamInterrupted", streamErr, reply.Interrupted)
	}
	if strings.Contains(got.String(), "stream error") || strings.Contains(reply.Text, "stream error") {
		t.Fatalf("the break was written into the text: streamed %q, reply %q", got.String(), reply.Text)
	}
	if !strings.HasPrefix(got.String(), "first part") || reply.Text != got.String() {
		t.Fatalf("delivered text lost: streamed %q, reply %q", got.String(), reply.Text)
	}
	if len(srv.Requests()) != 1 {
		t.Fatal("text already shown must not be retried")
	}
	sess, _ := store.Load("cli:d")
	if len(sess.Messages) != 2 {
		t.Fatalf("session = %+v", sess.Messages)
	}
}

func TestToolProgressEvents(t *testing.T) {
	a, srv, _, _ := setup(t, nil)
	srv.Enqueue(
		providertest.Reply{ToolCalls: []providers.ToolCall{
			providertest.Call("read_file", `{"path":"a.txt"}`),
			providertest.Call("read_file", `{"path":"missing.txt"}`),
		}},
		providertest.Text("done"),
	)
	var got []agent.ToolProgress
	ctx := agent.WithSink(context.Background(), func(ev agent.StreamEvent) {
		if ev.Tool != nil {
			got = append(got, *ev.Tool)
		}
		if ev.Tool != nil && (ev.Delta != "" || ev.Notice != "" || ev.Err != nil || ev.Done) {
			t.Errorf("a tool event carries other fields: %+v", ev)
		}
	})
	if _, err := a.Process(ctx, agent.Request{SessionKey: "cli:tp", Text: "x"}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 {
		t.Fatalf("tool events = %+v, want start and end of two calls", got)
	}
	for i, want := range []agent.ToolProgress{
		{Name: "read_file", Arguments: `{"path":"a.txt"}`},
		{Name: "read_file", Finished: true},
		{Name: "read_file", Arguments: `{"path":"missing.txt"}`},
		{Name: "read_file", Finished: true, Failed: true},
	} {
		g := got[i]
		if g.CallID == "" || g.CallID != got[i/2*2].CallID {
			t.Errorf("event %d: call id %q does not pair with its start %q", i, g.CallID, got[i/2*2].CallID)
		}
		g.CallID = ""
		if g != want {
			t.Errorf("event %d = %+v, want %+v", i, g, want)
		}
	}
}

func TestSystemPromptFromWorkspaceFollowsEdits(t *testing.T) {
	a, srv, _, ws := setup(t, nil)
	write := func(name, text string, mod time.Time) {
		t.Helper()
		p := filepath.Join(ws, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mod, mod); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Now().Add(-time.Hour)
	write("SOUL.md", "You speak like a pirate.", t0)
	write("MEMORY.md", "Owner likes tea.", t0)
	srv.Enqueue(providertest.Text("a"), providertest.Text("b"))
	ask := func() string {
		t.Helper()
		if _, err := a.Process(context.Background(), agent.Request{SessionKey: "cli:p", Text: "hi", Channel: "telegram", ChatID: "42"}); err != nil {
			t.Fatal(err)
		}
		reqs := srv.Requests()
		return reqs[len(reqs)-1].Messages[0].Content
	}
	sys := ask()
	for _, want := range []string{"pirate", "<memory>\nOwner likes tea.\n</memory>", "channel: telegram", "<current_time>"} {
		if !strings.Contains(sys, want) {
			t.Errorf("system prompt lacks %q:\n%s", want, sys)
		}
	}
	write("MEMORY.md", "Owner likes coffee now.", t0.Add(time.Minute))
	if sys = ask(); !strings.Contains(sys, "coffee") || strings.Contains(sys, "tea") {
		t.Fatalf("edited MEMORY.md not picked up:\n%s", sys)
	}
}

// panicTool fails in the worst way a tool can.
type panicTool struct{}

func (panicTool) Name() string                { return "boom" }
func (panicTool) Description() string         { return "panics" }
func (panicTool) Parameters() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (panicTool) Execute(context.Context, json.RawMessage) (string, error) {
	panic("kaboom")
}

func TestPanickingToolIsAToolError(t *testing.T) {
	srv := providertest.NewServer(t)
	client, _ := providers.NewClient(&providers.ClientOptions{BaseURL: srv.URL()})
	reg := tools.NewRegistry()
	if err := reg.Register(panicTool{}); err != nil {
		t.Fatal(err)
	}
	store, _ := memory.NewStore(t.TempDir())
	a, err := agent.New(client, "m", store, &agent.Options{Tools: reg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Wait)
	srv.Enqueue(providertest.ToolCalls(providertest.Call("boom", `{}`)), providertest.Text("ok"))
	if _, err := a.Process(context.Background(), agent.Request{SessionKey: "cli:b", Text: "x"}); err != nil {
		t.Fatal(err)
	}
	msgs := srv.Requests()[1].Messages
	if c := msgs[len(msgs)-1].Content; !strings.Contains(c, "kaboom") {
		t.Fatalf("tool result = %q", c)
	}
}

func TestTurnsOnOneSessionAreSerialized(t *testing.T) {
	a, srv, store, _ := setup(t, nil)
	const n = 8
	srv.SetFallback(func(providertest.Request) providertest.Reply { return providertest.Text("ok") })
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := a.Process(context.Background(), agent.Request{SessionKey: "cli:same", Text: "hi"}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	sess, _ := store.Load("cli:same")
	if len(sess.Messages) != 2*n {
		t.Fatalf("session holds %d messages, want %d: a turn overwrote another", len(sess.Messages), 2*n)
	}
}

func TestNewRefusesMissingParts(t *testing.T) {
	store, _ := memory.NewStore(t.TempDir())
	for _, tt := range []struct {
		name     string
		provider agent.Provider
		model    string
		sessions agent.Sessions
		want     string
	}{
		{"no provider", nil, "m", store, "provider"},
		{"no model", blockingProvider{}, "", store, "model"},
		{"no store", blockingProvider{}, "m", nil, "session store"},
	} {
		if _, err := agent.New(tt.provider, tt.model, tt.sessions, nil); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want one naming %q", tt.name, err, tt.want)
		}
	}
}

// TestNilPointersMeanNone: a nil *tools.Registry or *memory.LongTerm
// passed where the interface is expected counts as none, and a nil
// *memory.Store as no store, instead of panicking later.
func TestNilPointersMeanNone(t *testing.T) {
	if _, err := agent.New(blockingProvider{}, "m", (*memory.Store)(nil), nil); err == nil || !strings.Contains(err.Error(), "session store") {
		t.Fatalf("nil *memory.Store: err = %v", err)
	}
	srv := providertest.NewServer(t)
	client, _ := providers.NewClient(&providers.ClientOptions{BaseURL: srv.URL()})
	store, _ := memory.NewStore(t.TempDir())
	a, err := agent.New(client, "m", store, &agent.Options{Tools: (*tools.Registry)(nil), Memory: agent.MemoryOptions{LongTerm: (*memory.LongTerm)(nil)}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Wait)
	srv.Enqueue(providertest.ToolCalls(providertest.Call("read_file", `{}`)), providertest.Text("done"))
	reply, err := a.Process(context.Background(), agent.Request{SessionKey: "cli:nil", Text: "hi"})
	if err != nil || reply.Text != "done" {
		t.Fatalf("reply %+v, err %v", reply, err)
	}
	if got := lastToolResult(srv.Requests()[1].Messages); !strings.Contains(got, "no tools are available") {
		t.Fatalf("tool result = %q", got)
	}
}

func TestInvalidSessionKeyIsRefused(t *testing.T) {
	a, _, _, _ := setup(t, nil)
	if _, err := a.Process(context.Background(), agent.Request{SessionKey: "../../etc", Text: "x"}); err == nil {
		t.Fatal("a path-like session key was accepted")
	}
}

// The user's message is written in the background while the request goes
// out; when that write fails, no tool may run on the message's behalf.
func TestUnsavedMessageRunsNoTool(t *testing.T) {
	// The cap on messages would move this one to the inbox; it is raised
	// so the message reaches the session's own write.
	a, srv, store, ws := setup(t, &agent.Options{Limits: agent.LimitOptions{MaxMessageBytes: memory.MaxLineBytes + 1}})
	if err := os.Remove(filepath.Join(ws, "a.txt")); err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(providertest.ToolCalls(providertest.Call("write_file", `{"path":"a.txt","content":"written"}`)))
	// One line of a session file may not exceed memory.MaxLineBytes, so
	// this message cannot be stored.
	huge := strings.Repeat("x", memory.MaxLineBytes+1)
	reply, err := a.Process(context.Background(), agent.Request{SessionKey: "cli:huge", Text: huge})
	if err == nil || !strings.Contains(err.Error(), "MaxLineBytes") {
		t.Fatalf("err = %v, want the failed save named", err)
	}
	if reply == nil || !strings.Contains(reply.Text, "could not be saved, so no tool was run") {
		t.Fatalf("reply = %+v", reply)
	}
	if _, err := os.Stat(filepath.Join(ws, "a.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the tool ran although the message was not saved (stat: %v)", err)
	}
	if got := len(srv.Requests()); got != 1 {
		t.Fatalf("provider asked %d times, want once", got)
	}
	sess, err := store.Load("cli:huge")
	if err != nil {
		t.Fatal(err)
	}
	if len(sess.Messages) != 0 {
		t.Fatalf("stored %d messages of a turn that could not be saved", len(sess.Messages))
	}
}

// revoker is a tool that withdraws other tools from its registry when it
// runs, as a revoked MCP server's tools are withdrawn mid-turn.
type revoker struct {
	reg   *tools.Registry
	names []string
}

func (revoker) Name() string                { return "revoke" }
func (revoker) Description() string         { return "withdraws tools" }
func (revoker) Parameters() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (r revoker) Execute(context.Context, json.RawMessage) (string, error) {
	r.reg.Unregister("its server was revoked", r.names...)
	return "done", nil
}

func TestToolsWithdrawnMidTurnAreNotOfferedAgain(t *testing.T) {
	srv := providertest.NewServer(t)
	client, err := providers.NewClient(&providers.ClientOptions{BaseURL: srv.URL()})
	if err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry()
	if err := tools.RegisterFilesystem(reg, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if err := reg.Register(revoker{reg: reg, names: []string{"read_file"}}); err != nil {
		t.Fatal(err)
	}
	store, _ := memory.NewStore(t.TempDir())
	a, err := agent.New(client, "m", store, &agent.Options{Tools: reg, Memory: agent.MemoryOptions{DisableLearning: true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Wait)
	srv.Enqueue(providertest.ToolCalls(providertest.Call("revoke", `{}`)), providertest.Text("ok"))
	if _, err := a.Process(context.Background(), agent.Request{SessionKey: "cli:rev", Text: "go"}); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	offered := func(r providertest.Request, name string) bool {
		for _, d := range r.Tools {
			if d.Function.Name == name {
				return true
			}
		}
		return false
	}
	if !offered(reqs[0], "read_file") || offered(reqs[1], "read_file") || !offered(reqs[1], "write_file") {
		t.Errorf("read_file offered before %v and after %v the withdrawal; write_file after %v",
			offered(reqs[0], "read_file"), offered(reqs[1], "read_file"), offered(reqs[1], "write_file"))
	}
}
