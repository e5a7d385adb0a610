package agent_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/bus"
	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/providers/providertest"
	"github.com/joshbot/joshbot/tools"
)

// rig is an agent over a scripted provider, with the state a restart keeps.
type rig struct {
	srv    *providertest.Server
	client *providers.Client
	reg    *tools.Registry
	store  *memory.Store
	ws     string
}

func newRig(t *testing.T) *rig {
	t.Helper()
	srv := providertest.NewServer(t)
	client, err := providers.NewClient(&providers.ClientOptions{Name: "scripted", BaseURL: srv.URL(), APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("alpha\nbeta\ngamma\n"), 0o600); err != nil {
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
	return &rig{srv: srv, client: client, reg: reg, store: store, ws: ws}
}

// agent builds a fresh Agent over the rig's state, as a restart would.
func (r *rig) agent(t *testing.T, opts *agent.Options) *agent.Agent {
	t.Helper()
	if opts == nil {
		opts = &agent.Options{}
	}
	opts.Requests.ProviderName = "scripted"
	opts.Tools, opts.Workspace = r.reg, r.ws
	a, err := agent.New(r.client, "base-model", r.store, opts)
	if err != nil {
		t.Fatal(err)
	}
	// Background work after a turn writes beside the sessions; it must end
	// before the temporary directories go.
	t.Cleanup(a.Wait)
	return a
}

func process(t *testing.T, a *agent.Agent, key, text string) *agent.Reply {
	t.Helper()
	reply, err := a.Process(context.Background(), agent.Request{SessionKey: key, Text: text, Channel: "cli"})
	if err != nil {
		t.Fatalf("Process(%q): %v", text, err)
	}
	return reply
}

func lastToolResult(msgs []providers.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == providers.RoleTool {
			return msgs[i].Content
		}
	}
	return ""
}

func TestRepeatedIdenticalCallIsRefusedOnTheFourth(t *testing.T) {
	for _, tt := range []struct {
		name     string
		args     []string
		refused  int // which call (1-based) is refused; 0 = none
		limitOpt int
	}{
		{"same args four times", []string{`{"path":"a.txt"}`, `{"path":"a.txt"}`, `{"path": "a.txt"}`, `{"path":"a.txt"}`}, 4, 0},
		{"key order and spacing do not matter", []string{`{"path":"a.txt","offset":1}`, `{"offset":1, "path":"a.txt"}`, `{"path":"a.txt","offset":1}`, `{"offset":1,"path":"a.txt"}`}, 4, 0},
		{"a different call resets the run", []string{`{"path":"a.txt"}`, `{"path":"a.txt"}`, `{"path":"a.txt","offset":2}`, `{"path":"a.txt"}`}, 0, 0},
		{"limit of one", []string{`{"path":"a.txt"}`, `{"path":"a.txt"}`}, 2, 1},
		{"disabled", []string{`{"path":"a.txt"}`, `{"path":"a.txt"}`, `{"path":"a.txt"}`, `{"path":"a.txt"}`}, 0, -1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t)
			a := r.agent(t, &agent.Options{Limits: agent.LimitOptions{RepeatLimit: tt.limitOpt}})
			for _, args := range tt.args {
				r.srv.Enqueue(providertest.ToolCalls(providertest.Call("read_file", args)))
			}
			r.srv.Enqueue(providertest.Text("done"))
			process(t, a, "cli:loop", "read it")
			reqs := r.srv.Requests()
			for i := range tt.args {
				res := lastToolResult(reqs[i+1].Messages)
				isRefusal := strings.Contains(res, "refused") && strings.Contains(res, "read_file")
				if want := i+1 == tt.refused; isRefusal != want {
					t.Errorf("call %d: refused=%v, want %v; result %q", i+1, isRefusal, want, res)
				}
				if !isRefusal && strings.HasPrefix(res, "Error") {
					t.Errorf("call %d did not run: %q", i+1, res)
				}
			}
		})
	}
}

func TestToolCallWrittenAsTextIsExecuted(t *testing.T) {
	for _, tt := range []struct {
		name, content string
		runs          bool
	}{
		{"bare object", `{"name":"read_file","arguments":{"path":"a.txt"}}`, true},
		{"fenced", "```json\n{\"name\": \"read_file\", \"parameters\": {\"path\": \"a.txt\"}}\n```", true},
		{"tagged with string arguments", `<tool_call>{"name":"read_file","arguments":"{\"path\":\"a.txt\"}"}</tool_call>`, true},
		{"array", `[{"name":"read_file","arguments":{"path":"a.txt"}}]`, true},
		{"prose around JSON is an answer", `Here is how to call it: {"name":"read_file","arguments":{"path":"a.txt"}}`, false},
		{"unknown tool is an answer", `{"name":"launch_rockets","arguments":{}}`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t)
			a := r.agent(t, nil)
			r.srv.Enqueue(providertest.Text(tt.content))
			if tt.runs {
				r.srv.Enqueue(providertest.Text("the file says alpha"))
			}
			reply := process(t, a, "cli:txt", "read a.txt")
			reqs := r.srv.Requests()
			if tt.runs {
				if len(reqs) != 2 || !strings.Contains(lastToolResult(reqs[1].Messages), "alpha") {
					t.Fatalf("text tool call not executed; requests=%d", len(reqs))
				}
				if reply.Text != "the file says alpha" || reply.ToolCalls != 1 {
					t.Fatalf("reply = %+v", reply)
				}
				return
			}
			if len(reqs) != 1 || reply.Text != tt.content {
				t.Fatalf("content should be the answer: requests=%d reply=%q", len(reqs), reply.Text)
			}
		})
	}
}

func TestIterationLimitEndsWithSummary(t *testing.T) {
	r := newRig(t)
	a := r.agent(t, &agent.Options{Limits: agent.LimitOptions{MaxIterations: 3}})
	r.srv.Enqueue(
		providertest.ToolCalls(providertest.Call("list_dir", `{}`)),
		providertest.ToolCalls(providertest.Call("read_file", `{"path":"a.txt"}`)),
		providertest.ToolCalls(providertest.Call("read_file", `{"path":"a.txt","offset":1}`)),
	)
	reply, err := a.Process(context.Background(), agent.Request{SessionKey: "cli:lim", Text: "go"})
	if !errors.Is(err, agent.ErrIterationLimit) {
		t.Fatalf("err = %v", err)
	}
	for _, want := range []string{"read_file ×2", "list_dir", "LimitOptions.MaxIterations"} {
		if !strings.Contains(reply.Text, want) {
			t.Errorf("summary %q lacks %q", reply.Text, want)
		}
	}
}

func TestModelOverrideSurvivesRestartForThatSessionOnly(t *testing.T) {
	r := newRig(t)
	a := r.agent(t, nil)
	r.srv.Enqueue(providertest.Text("hi"))
	process(t, a, "cli:one", "hello")
	before := a.Model("cli:one")
	reply := process(t, a, "cli:one", "/model fancy-model")
	if !strings.Contains(reply.Text, "fancy-model") {
		t.Fatalf("/model reply = %q", reply.Text)
	}
	if a.Model("cli:one") != "fancy-model" || a.Model("cli:two") != before || before == "fancy-model" {
		t.Fatalf("Model: %q after, %q other session, %q before", a.Model("cli:one"), a.Model("cli:two"), before)
	}
	if len(r.srv.Requests()) != 1 {
		t.Fatal("/model must not ask the model")
	}

	if m, err := r.store.LoadMeta("cli:one"); err != nil || m.ModelOverride != "fancy-model" {
		t.Fatalf("sidecar = %+v, %v", m, err)
	}
	b := r.agent(t, nil) // restart: a new Agent over the same session store
	r.srv.Enqueue(providertest.Text("one"), providertest.Text("two"))
	process(t, b, "cli:one", "again")
	process(t, b, "cli:two", "other")
	reqs := r.srv.Requests()
	if got := reqs[1].Model; got != "fancy-model" {
		t.Errorf("session one after restart used %q, want fancy-model", got)
	}
	if got := reqs[2].Model; got != "base-model" {
		t.Errorf("session two used %q, want the default", got)
	}
	// The switch kept the transcript: hello, hi, again.
	if n := len(reqs[1].Messages); n != 4 {
		t.Errorf("turn after switch sent %d messages, want system+3", n)
	}
	sess, _ := r.store.Load("cli:one")
	for _, m := range sess.Messages {
		if strings.HasPrefix(m.Content, "/model") {
			t.Error("a command was stored in the transcript")
		}
	}

	// /new clears the override and the transcript; the old messages go to
	// the history archive, not away.
	process(t, b, "cli:one", "/new")
	ap, _ := r.store.ArchivePath("cli:one")
	if raw, err := os.ReadFile(ap); err != nil || !strings.Contains(string(raw), "hello") {
		t.Fatalf("archive after /new: %v %q", err, raw)
	}
	r.srv.Enqueue(providertest.Text("fresh"))
	process(t, b, "cli:one", "start")
	reqs = r.srv.Requests()
	if last := reqs[len(reqs)-1]; last.Model != "base-model" || len(last.Messages) != 2 {
		t.Errorf("after /new: model %q, %d messages", last.Model, len(last.Messages))
	}
}

func TestBareCommandsReturnChoices(t *testing.T) {
	r := newRig(t)
	a := r.agent(t, &agent.Options{Commands: agent.CommandOptions{ModelChoices: []string{"other-model"}, Profiles: map[string]agent.Profile{"coder": {Description: "writes code"}}}})
	reply := process(t, a, "cli:c", "/model")
	if len(reply.Choices) != 2 || reply.Choices[0].Command != "/model base-model" || !reply.Choices[0].Current || reply.Choices[1].Label != "other-model" {
		t.Fatalf("model choices = %+v", reply.Choices)
	}
	process(t, a, "cli:c", "/personality concise")
	reply = process(t, a, "cli:c", "/personality")
	var current []string
	for _, c := range reply.Choices {
		if c.Current {
			current = append(current, c.Label)
		}
	}
	if len(current) != 1 || current[0] != "concise" {
		t.Fatalf("personality current = %v (%+v)", current, reply.Choices)
	}
	reply = process(t, a, "cli:c", "/agent")
	if len(reply.Choices) != 2 || reply.Choices[1].Command != "/agent coder" {
		t.Fatalf("agent choices = %+v", reply.Choices)
	}
	if r := process(t, a, "cli:c", "/personality grumpy"); !strings.Contains(r.Text, "no personality") || !strings.Contains(r.Text, "concise") {
		t.Fatalf("bad personality reply = %q", r.Text)
	}
	// The personality reaches the prompt.
	r.srv.Enqueue(providertest.Text("ok"))
	process(t, a, "cli:c", "hi")
	if sys := r.srv.Requests()[0].Messages[0].Content; !strings.Contains(sys, "<personality>") || !strings.Contains(sys, "few words") {
		t.Fatalf("personality not in prompt: %q", sys)
	}
}

func TestCommandTableDispatch(t *testing.T) {
	r := newRig(t)
	a := r.agent(t, &agent.Options{Commands: agent.CommandOptions{ProviderStatus: func() []string { return []string{"scripted: healthy"} }}})
	for _, tt := range []struct {
		a          *agent.Agent
		text, want string
	}{
		{a, "/help", "/model [name] [--global]"},
		{a, "/frobnicate", "Unknown command /frobnicate"},
		{a, "/compact", "Nothing to compact yet"},
		{a, "/compact@joshbot_bot", "Nothing to compact yet"},
		{a, "/status", "scripted: healthy"},
		{a, "/status", "Tools: 6"},
		{a, "/model --global x", "not available here"},
		{a, "/model two words", "one model name"},
		{a, "/agent nobody", "no agent profile"},
	} {
		if got := process(t, tt.a, "cli:d", tt.text).Text; !strings.Contains(got, tt.want) {
			t.Errorf("%s: reply %q lacks %q", tt.text, got, tt.want)
		}
	}
	// A path is not a command: it goes to the model.
	r.srv.Enqueue(providertest.Text("that is a path"))
	if got := process(t, a, "cli:d", "/etc/hosts looks odd").Text; got != "that is a path" {
		t.Errorf("path-like text answered %q", got)
	}
}

func TestGlobalModelAppliesToEverySessionAndIsSaved(t *testing.T) {
	r := newRig(t)
	var saved string
	a := r.agent(t, &agent.Options{Commands: agent.CommandOptions{SaveGlobalModel: func(_ context.Context, m string) error { saved = m; return nil }}})
	process(t, a, "cli:g1", "/model local-x")
	process(t, a, "cli:g1", "/model global-y --global")
	if saved != "global-y" {
		t.Fatalf("saved %q", saved)
	}
	r.srv.Enqueue(providertest.Text("a"), providertest.Text("b"))
	process(t, a, "cli:g1", "hi")
	process(t, a, "cli:g2", "hi")
	for i, req := range r.srv.Requests() {
		if req.Model != "global-y" {
			t.Errorf("request %d used %q", i, req.Model)
		}
	}
}

func TestAgentProfileNarrowsToolsAndSetsModel(t *testing.T) {
	r := newRig(t)
	a := r.agent(t, &agent.Options{Commands: agent.CommandOptions{Profiles: map[string]agent.Profile{
		"reader": {Model: "reader-model", Tools: []string{"read_file"}, Prompt: "Only read."},
	}}})
	process(t, a, "cli:p", "/agent reader")
	r.srv.Enqueue(providertest.ToolCalls(providertest.Call("write_file", `{"path":"x","content":"y"}`)), providertest.Text("no"))
	process(t, a, "cli:p", "write")
	reqs := r.srv.Requests()
	if reqs[0].Model != "reader-model" || len(reqs[0].Tools) != 1 || reqs[0].Tools[0].Function.Name != "read_file" {
		t.Fatalf("profile not applied: model %q, tools %d", reqs[0].Model, len(reqs[0].Tools))
	}
	if res := lastToolResult(reqs[1].Messages); !strings.Contains(res, "not available to this agent profile") {
		t.Fatalf("write_file ran under a read-only profile: %q", res)
	}
	if _, err := os.Stat(filepath.Join(r.ws, "x")); err == nil {
		t.Fatal("file written")
	}
}

func TestParallelSubagentsReturnResultsInOrder(t *testing.T) {
	r := newRig(t)
	if err := tools.RegisterSubagents(r.reg, &tools.SubagentOptions{MaxParallel: 3}); err != nil {
		t.Fatal(err)
	}
	a := r.agent(t, nil)
	var inFlight, peak atomic.Int32
	r.srv.SetFallback(func(req providertest.Request) providertest.Reply {
		sys := req.Messages[0].Content
		last := req.Messages[len(req.Messages)-1]
		if strings.Contains(sys, "You are a subagent") {
			n := inFlight.Add(1)
			defer inFlight.Add(-1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			// Later tasks answer first, so input order cannot come from
			// arrival order.
			task := req.Messages[1].Content
			d := map[string]time.Duration{"task one": 60, "task two": 30, "task three": 0}[task]
			time.Sleep(d * time.Millisecond)
			for _, tl := range req.Tools {
				if tl.Function.Name == "parallel" {
					return providertest.Text("subagent was offered parallel at the depth limit")
				}
			}
			return providertest.Text("result of " + task)
		}
		if last.Role == providers.RoleUser {
			return providertest.ToolCalls(providertest.Call("parallel", `{"tasks":["task one","task two","task three"]}`))
		}
		return providertest.Text(last.Content)
	})
	reply := process(t, a, "cli:par", "do three things")
	i1, i2, i3 := strings.Index(reply.Text, "result of task one"), strings.Index(reply.Text, "result of task two"), strings.Index(reply.Text, "result of task three")
	if i1 < 0 || i2 < 0 || i3 < 0 || !(i1 < i2 && i2 < i3) {
		t.Fatalf("results missing or out of order: %q", reply.Text)
	}
	if peak.Load() < 2 {
		t.Errorf("subagents did not run concurrently (peak %d)", peak.Load())
	}
	sess, _ := r.store.Load("cli:par")
	for _, m := range sess.Messages {
		if m.Content == "task one" {
			t.Error("a subagent's conversation leaked into the session")
		}
	}
}

func TestSubagentDepthAndChain(t *testing.T) {
	r := newRig(t)
	if err := tools.RegisterSubagents(r.reg, nil); err != nil {
		t.Fatal(err)
	}
	a := r.agent(t, &agent.Options{Limits: agent.LimitOptions{MaxSubagentDepth: 1}})
	// Main agent chains two steps; the first subagent tries to spawn
	// again and is refused because depth 1 is the limit.
	r.srv.Enqueue(
		providertest.ToolCalls(providertest.Call("chain", `{"steps":["step A","step B"]}`)),
		providertest.ToolCalls(providertest.Call("subagent", `{"task":"deeper"}`)), // subagent A
		providertest.Text("A done"),
		providertest.Text("B saw it"), // subagent B
		providertest.Text("all done"),
	)
	process(t, a, "cli:ch", "chain it")
	reqs := r.srv.Requests()
	if res := lastToolResult(reqs[2].Messages); !strings.Contains(res, "not available") {
		t.Errorf("nested spawn at the depth limit was not refused: %q", res)
	}
	if b := reqs[3].Messages[1].Content; !strings.Contains(b, "step B") || !strings.Contains(b, "A done") {
		t.Errorf("step B did not get step A's result: %q", b)
	}
	if res := lastToolResult(reqs[4].Messages); res != "B saw it" {
		t.Errorf("chain returned %q", res)
	}
}

func TestIncidentsRecordedAndHealBump(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "incidents.jsonl")
	clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	log, err := agent.OpenIncidentLog(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	store, _ := memory.NewStore(t.TempDir())
	a, err := agent.New(blockingProvider{}, "m", store, &agent.Options{Now: func() time.Time { return clock }, Limits: agent.LimitOptions{Timeout: 20 * time.Millisecond}, Hooks: agent.HookOptions{Incidents: log}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Wait) // background learning writes beside the sessions
	if _, err := a.Process(context.Background(), agent.Request{SessionKey: "cli:x", Text: "hi"}); !errors.Is(err, agent.ErrTurnTimeout) {
		t.Fatalf("err = %v", err)
	}

	r := newRig(t)
	b := r.agent(t, &agent.Options{Now: func() time.Time { return clock }, Hooks: agent.HookOptions{Incidents: log}})
	r.srv.Enqueue(providertest.Error(500, "boom Bearer sk-abcdefghijklmnop"))
	b.Process(context.Background(), agent.Request{SessionKey: "cli:y", Text: "hi"})
	r.srv.Enqueue(providertest.Reply{Content: "partial answer text here", DieAfterChunks: 3})
	b.Process(agent.WithSink(context.Background(), func(agent.StreamEvent) {}), agent.Request{SessionKey: "cli:z", Text: "hi"})

	got := log.List()
	kinds := make([]string, len(got))
	for i, inc := range got {
		kinds[i] = inc.Kind
	}
	if strings.Join(kinds, ",") != "turn_timeout,llm_failure,stream_died" {
		t.Fatalf("kinds = %v", kinds)
	}
	if got[0].Iterations != 1 {
		t.Errorf("timeout incident iterations = %d", got[0].Iterations)
	}
	raw, _ := os.ReadFile(path)
	if strings.Contains(string(raw), "abcdefghijklmnop") {
		t.Errorf("credential reached incidents.jsonl: %s", raw)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	if line := agent.IncidentLine(log, clock.Add(-time.Hour)); !strings.Contains(line, "3 in the last 24h") {
		t.Errorf("status line = %q", line)
	}
	if reply := process(t, b, "cli:y", "/status"); !strings.Contains(reply.Text, "Incidents: 3") {
		t.Errorf("/status = %q", reply.Text)
	}

	// A bad line is skipped on reload; the rest survive.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("{not json\n")
	f.Close()
	re, err := agent.OpenIncidentLog(path, nil)
	if err != nil || len(re.List()) != 3 {
		t.Fatalf("reload: %v, %d", err, len(re.List()))
	}

	for _, tt := range []struct {
		timeouts int
		age      time.Duration
		want     time.Duration
	}{
		{0, 0, 2 * time.Minute},
		{1, time.Hour, 2*time.Minute + 30*time.Second},
		{6, time.Hour, 4 * time.Minute},
		{3, 25 * time.Hour, 2 * time.Minute},
	} {
		l, _ := agent.OpenIncidentLog(filepath.Join(t.TempDir(), "i.jsonl"), nil)
		for i := 0; i < tt.timeouts; i++ {
			l.Record(agent.Incident{Time: clock.Add(-tt.age), Kind: agent.IncidentTurnTimeout})
		}
		l.Record(agent.Incident{Time: clock, Kind: agent.IncidentLLMFailure})
		if got := agent.HealedTimeout(2*time.Minute, l, clock); got != tt.want {
			t.Errorf("%d timeouts %s ago: %s, want %s", tt.timeouts, tt.age, got, tt.want)
		}
	}
}

func TestIncidentLogCap(t *testing.T) {
	path := filepath.Join(t.TempDir(), "i.jsonl")
	l, _ := agent.OpenIncidentLog(path, &agent.IncidentLogOptions{Cap: 5})
	for i := 0; i < 12; i++ {
		l.Record(agent.Incident{Time: time.Unix(int64(i), 0), Kind: agent.IncidentLLMFailure, Error: fmt.Sprint(i)})
	}
	if got := l.List(); len(got) != 5 || got[0].Error != "7" {
		t.Fatalf("in memory: %d, first %q", len(got), got[0].Error)
	}
	re, _ := agent.OpenIncidentLog(path, &agent.IncidentLogOptions{Cap: 5})
	if got := re.List(); len(got) != 5 || got[4].Error != "11" {
		t.Fatalf("reloaded: %+v", got)
	}
	if err := re.Clear(); err != nil || len(re.List()) != 0 {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); len(b) != 0 {
		t.Fatal("file not truncated")
	}
}

type outbox struct {
	mu  sync.Mutex
	got []bus.Outbound
}

func (o *outbox) PublishOutbound(_ context.Context, m bus.Outbound) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.got = append(o.got, m)
	return nil
}

func TestMessageToolDeliversToTheTurnsConversation(t *testing.T) {
	r := newRig(t)
	out := &outbox{}
	if err := tools.RegisterMessaging(r.reg, out, r.ws, nil); err != nil {
		t.Fatal(err)
	}
	a := r.agent(t, nil)
	r.srv.Enqueue(
		providertest.ToolCalls(providertest.Call("message", `{"text":"on it","channel":"discord","chat_id":"evil"}`)),
		providertest.ToolCalls(providertest.Call("send_file", `{"path":"a.txt"}`)),
		providertest.Text("sent"),
	)
	if _, err := a.Process(context.Background(), agent.Request{SessionKey: "telegram:5", Text: "send it", Channel: "telegram", ChatID: "chat-5"}); err != nil {
		t.Fatal(err)
	}
	if len(out.got) != 2 {
		t.Fatalf("outbox got %d", len(out.got))
	}
	for _, m := range out.got {
		if m.Channel != "telegram" || m.ChatID != "chat-5" {
			t.Fatalf("delivered to %s/%s", m.Channel, m.ChatID)
		}
	}
	if att := out.got[1].Attachments; len(att) != 1 || string(att[0].Data) != "alpha\nbeta\ngamma\n" || !strings.HasPrefix(att[0].MIME, "text/plain") {
		t.Fatalf("attachment = %+v", att)
	}
}

func TestOnTurnReportsToolSequence(t *testing.T) {
	r := newRig(t)
	var got []string
	a := r.agent(t, &agent.Options{Hooks: agent.HookOptions{OnTurn: func(key string, names []string) {
		if key == "cli:seq" {
			got = append([]string(nil), names...)
		}
	}}})
	r.srv.Enqueue(
		providertest.ToolCalls(providertest.Call("list_dir", `{}`), providertest.Call("read_file", `{"path":"a.txt"}`)),
		providertest.ToolCalls(providertest.Call("grep", `{"pattern":"beta"}`)),
		providertest.Text("done"),
	)
	process(t, a, "cli:seq", "look around")
	if strings.Join(got, ",") != "list_dir,read_file,grep" {
		t.Fatalf("sequence = %v", got)
	}
}

func TestCommandAnswerReachesTheSink(t *testing.T) {
	r := newRig(t)
	a := r.agent(t, nil)
	var got strings.Builder
	done := false
	ctx := agent.WithSink(context.Background(), func(ev agent.StreamEvent) {
		got.WriteString(ev.Delta)
		done = done || ev.Done
	})
	reply, err := a.Process(ctx, agent.Request{SessionKey: "cli:sink", Text: "/help"})
	if err != nil || got.String() != reply.Text || !done || !strings.Contains(reply.Text, "/status") {
		t.Fatalf("sink got %q (done %v), reply %q, %v", got.String(), done, reply.Text, err)
	}
}

func TestStreamedTextToolCallIsNotShown(t *testing.T) {
	for _, tt := range []struct {
		name, first, want string
		calls             bool
	}{
		{"tool call held back", `{"name":"read_file","arguments":{"path":"a.txt"}}`, "The file has three lines.", true},
		{"JSON answer released", `{"answer": 42}`, `{"answer": 42}`, false},
		{"prose streams", "Plain answer text.", "Plain answer text.", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t)
			a := r.agent(t, nil)
			r.srv.Enqueue(providertest.Reply{Content: tt.first, Chunks: 5})
			if tt.calls {
				r.srv.Enqueue(providertest.Text("The file has three lines."))
			}
			var shown strings.Builder
			ctx := agent.WithSink(context.Background(), func(ev agent.StreamEvent) { shown.WriteString(ev.Delta) })
			reply, err := a.Process(ctx, agent.Request{SessionKey: "cli:st", Text: "go"})
			if err != nil {
				t.Fatal(err)
			}
			if shown.String() != tt.want || reply.Text != tt.want {
				t.Fatalf("shown %q, reply %q, want %q", shown.String(), reply.Text, tt.want)
			}
			if tt.calls != (reply.ToolCalls == 1) {
				t.Fatalf("tool calls = %d", reply.ToolCalls)
			}
		})
	}
}
