package agent_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/providers/providertest"
	"github.com/joshbot/joshbot/tools"
)

// noteTool reports two notes, one from a goroutine of its own, and
// another after it has returned (which must not reach the sink).
type noteTool struct{ late chan struct{} }

func (noteTool) Name() string                { return "fetch_all" }
func (noteTool) Description() string         { return "downloads" }
func (noteTool) Parameters() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (n noteTool) Execute(ctx context.Context, _ json.RawMessage) (string, error) {
	tools.Note(ctx, "downloading 1 of 2")
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); tools.Note(ctx, "downloading\n2 of 2") }()
	wg.Wait()
	go func() { <-n.late; tools.Note(ctx, "too late"); close(n.late) }()
	return "ok", nil
}

func TestToolNotesArriveBetweenStartAndDone(t *testing.T) {
	srv := providertest.NewServer(t)
	client, _ := providers.NewClient(&providers.ClientOptions{BaseURL: srv.URL()})
	reg := tools.NewRegistry()
	nt := noteTool{late: make(chan struct{})}
	if err := reg.Register(nt); err != nil {
		t.Fatal(err)
	}
	store, _ := memory.NewStore(t.TempDir())
	a, err := agent.New(client, "m", store, &agent.Options{Tools: reg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Wait)
	srv.Enqueue(providertest.ToolCalls(providertest.Call("fetch_all", `{}`)), providertest.Text("done"))
	var mu sync.Mutex
	var got []agent.ToolProgress
	ctx := agent.WithSink(context.Background(), func(ev agent.StreamEvent) {
		if ev.Tool != nil {
			mu.Lock()
			got = append(got, *ev.Tool)
			mu.Unlock()
		}
	})
	if _, err := a.Process(ctx, agent.Request{SessionKey: "cli:n", Text: "x"}); err != nil {
		t.Fatal(err)
	}
	nt.late <- struct{}{}
	<-nt.late
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 4 {
		t.Fatalf("tool events = %+v, want start, two notes, done", got)
	}
	if got[0].Arguments != "{}" || got[0].Finished || got[0].Note != "" {
		t.Errorf("start = %+v", got[0])
	}
	for i, want := range []string{"downloading 1 of 2", "downloading 2 of 2"} {
		g := got[1+i]
		if g.Note != want || g.Finished || g.Arguments != "" || g.Name != "fetch_all" || g.CallID != got[0].CallID {
			t.Errorf("note %d = %+v, want %q on call %s", i, g, want, got[0].CallID)
		}
	}
	if !got[3].Finished || got[3].Note != "" {
		t.Errorf("end = %+v", got[3])
	}
}

// Without a sink a tool's notes go nowhere and nothing breaks.
func TestToolNotesWithoutSink(t *testing.T) {
	srv := providertest.NewServer(t)
	client, _ := providers.NewClient(&providers.ClientOptions{BaseURL: srv.URL()})
	reg := tools.NewRegistry()
	nt := noteTool{late: make(chan struct{})}
	_ = reg.Register(nt)
	store, _ := memory.NewStore(t.TempDir())
	a, _ := agent.New(client, "m", store, &agent.Options{Tools: reg})
	t.Cleanup(a.Wait)
	srv.Enqueue(providertest.ToolCalls(providertest.Call("fetch_all", `{}`)), providertest.Text("done"))
	if r, err := a.Process(context.Background(), agent.Request{SessionKey: "cli:n2", Text: "x"}); err != nil || r.Text != "done" {
		t.Fatalf("%+v %v", r, err)
	}
	nt.late <- struct{}{}
	<-nt.late
}
