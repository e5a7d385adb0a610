package cli

// The approval inheritance of subagents is tested here rather than in the
// agent module, which may not import sandbox (ARCHITECTURE.md): the
// approver travels on the context, and only the binary sees both sides.

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/providers/providertest"
	"github.com/joshbot/joshbot/sandbox"
	"github.com/joshbot/joshbot/tools"
)

// approvalProbe asks the turn's approver, as the shell tool does.
type approvalProbe struct{}

func (approvalProbe) Name() string                { return "probe" }
func (approvalProbe) Description() string         { return "asks the approver" }
func (approvalProbe) Parameters() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (approvalProbe) Execute(ctx context.Context, _ json.RawMessage) (string, error) {
	d, _ := sandbox.Ask(ctx, sandbox.ApproverFromContext(ctx), &sandbox.ApprovalRequest{Command: "make deploy"})
	return "decision=" + d.String(), nil
}

func TestSubagentInheritsApproverAndToolRestriction(t *testing.T) {
	srv := providertest.NewServer(t)
	client, err := providers.NewClient(&providers.ClientOptions{Name: "s", BaseURL: srv.URL(), APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("a"), 0o600)
	reg := tools.NewRegistry()
	tools.RegisterFilesystem(reg, ws)
	tools.RegisterSubagents(reg, nil)
	reg.Register(approvalProbe{})
	store, _ := memory.NewStore(t.TempDir())
	a, err := agent.New(client, "m", store, &agent.Options{Tools: reg, Commands: agent.CommandOptions{Profiles: map[string]agent.Profile{"narrow": {Tools: []string{"subagent", "read_file"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Wait)
	process := func(t *testing.T, a *agent.Agent, key, text string) {
		t.Helper()
		if _, err := a.Process(context.Background(), agent.Request{SessionKey: key, Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	r := struct{ srv *providertest.Server }{srv}
	var asked atomic.Int32
	approving := sandbox.WithApprover(context.Background(), sandbox.ApproverFunc(func(context.Context, *sandbox.ApprovalRequest) (sandbox.Decision, error) {
		asked.Add(1)
		return sandbox.Allow, nil
	}))

	// Unrestricted caller with an approver: the subagent's probe reaches
	// the same approver.
	r.srv.Enqueue(
		providertest.ToolCalls(providertest.Call("subagent", `{"task":"probe it"}`)),
		providertest.ToolCalls(providertest.Call("probe", `{}`)),
		providertest.Text("sub done"),
		providertest.Text("main done"),
	)
	if _, err := a.Process(approving, agent.Request{SessionKey: "cli:ap", Text: "go"}); err != nil {
		t.Fatal(err)
	}
	reqs := r.srv.Requests()
	if got := lastToolMessage(reqs[2].Messages); got != "decision=allow" || asked.Load() != 1 {
		t.Fatalf("subagent probe = %q, asked %d", got, asked.Load())
	}

	// Without an approver the subagent is denied, like its caller.
	r.srv.Enqueue(
		providertest.ToolCalls(providertest.Call("subagent", `{"task":"probe it"}`)),
		providertest.ToolCalls(providertest.Call("probe", `{}`)),
		providertest.Text("sub done"),
		providertest.Text("main done"),
	)
	process(t, a, "cli:ap2", "go")
	reqs = r.srv.Requests()
	if got := lastToolMessage(reqs[len(reqs)-2].Messages); got != "decision=deny" {
		t.Fatalf("subagent without approver = %q", got)
	}

	// A caller narrowed by /agent cannot widen through a subagent.
	process(t, a, "cli:ap3", "/agent narrow")
	r.srv.Enqueue(
		providertest.ToolCalls(providertest.Call("subagent", `{"task":"probe it"}`)),
		providertest.ToolCalls(providertest.Call("probe", `{}`)),
		providertest.Text("sub done"),
		providertest.Text("main done"),
	)
	process(t, a, "cli:ap3", "go")
	reqs = r.srv.Requests()
	sub := reqs[len(reqs)-3]
	for _, tl := range sub.Tools {
		if tl.Function.Name == "probe" {
			t.Fatal("subagent of a narrowed caller was offered probe")
		}
	}
	if got := lastToolMessage(reqs[len(reqs)-2].Messages); !strings.Contains(got, "not available to this agent profile") {
		t.Fatalf("narrowed subagent ran probe: %q", got)
	}
}

// lastToolMessage is the content of the last tool message in msgs.
func lastToolMessage(msgs []providers.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == providers.RoleTool {
			return msgs[i].Content
		}
	}
	return ""
}
