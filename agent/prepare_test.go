package agent_test

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/providers/providertest"
	"github.com/joshbot/joshbot/tools"
)

// prepTool is a tool with the Preparer ability that logs what happens to
// it, in order.
type prepTool struct {
	name string
	mu   *sync.Mutex
	log  *[]string
}

func (p prepTool) Name() string                { return p.name }
func (p prepTool) Description() string         { return "gets ready first" }
func (p prepTool) Parameters() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (p prepTool) note(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	*p.log = append(*p.log, p.name+" "+s)
}
func (p prepTool) Prepare() { p.note("prepare") }
func (p prepTool) Execute(context.Context, json.RawMessage) (string, error) {
	p.note("execute")
	return "ok", nil
}

// A tool the reply names is told to get ready before its call runs, once
// per call; a tool offered but not called is not.
func TestToolsNamedByAReplyArePreparedBeforeTheyRun(t *testing.T) {
	srv := providertest.NewServer(t)
	client, _ := providers.NewClient(&providers.ClientOptions{BaseURL: srv.URL()})
	var mu sync.Mutex
	var log []string
	reg := tools.NewRegistry()
	for _, n := range []string{"build", "deploy"} {
		if err := reg.Register(prepTool{name: n, mu: &mu, log: &log}); err != nil {
			t.Fatal(err)
		}
	}
	store, _ := memory.NewStore(t.TempDir())
	a, err := agent.New(client, "m", store, &agent.Options{Tools: reg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Wait)
	srv.Enqueue(providertest.ToolCalls(providertest.Call("build", `{}`), providertest.Call("build", `{}`)), providertest.Text("done"))
	if r, err := a.Process(context.Background(), agent.Request{SessionKey: "cli:p", Text: "x"}); err != nil || r.Text != "done" {
		t.Fatalf("%+v %v", r, err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"build prepare", "build prepare", "build execute", "build execute"}
	if !slices.Equal(log, want) {
		t.Errorf("events = %q, want %q", log, want)
	}
}
