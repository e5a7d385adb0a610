package serve

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/joshbot/joshbot/apiserver"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
	"github.com/joshbot/joshbot/providers/providertest"
	"github.com/joshbot/joshbot/tools"
)

// notingTool reports a note while it runs, as web_search does when it
// falls back.
type notingTool struct{}

func (notingTool) Name() string                { return "slow_fetch" }
func (notingTool) Description() string         { return "fetches slowly" }
func (notingTool) Parameters() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (notingTool) Execute(ctx context.Context, _ json.RawMessage) (string, error) {
	tools.Note(ctx, "downloading 3 of 7")
	return "fetched", nil
}

// TestServerStreamsToolNotesAsComments: a note a tool reports mid-call is
// an SSE comment of its own, after the call's start comment and before the
// answer, and the OpenAI-shaped deltas are untouched by it.
func TestServerStreamsToolNotesAsComments(t *testing.T) {
	srv := providertest.NewServer(t)
	srv.Enqueue(providertest.ToolCalls(providertest.Call("slow_fetch", `{}`)), providertest.Text("all seven"))
	home := t.TempDir()
	// startServerIn writes the test config into home; its server is not used.
	_, stop := startServerIn(t, srv, home)
	stop()
	// The same config, loaded with the noting tool added to the registry.
	ctx, cancel := context.WithCancel(context.Background())
	p := filepath.Join(home, "config.json")
	rt, err := runtime.Load(ctx, &runtime.Options{ConfigPath: p, Home: home, WrapTools: func(reg *tools.Registry) (*tools.Registry, error) {
		if err := reg.Register(notingTool{}); err != nil {
			return nil, err
		}
		return runtime.ProgressTools(reg)
	}})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	s, err := New(rt, &Options{Listen: "127.0.0.1:0", ListenSet: true})
	if err != nil {
		cancel()
		rt.Close()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
		rt.Close()
	}()
	base := "http://" + s.Addr().String()
	code, body := post(t, base+"/v1/chat/completions", `{"model":"joshbot","user":"u1","stream":true,"messages":[{"role":"user","content":"get them"}]}`)
	if code != http.StatusOK || streamedText(t, body) != "all seven" {
		t.Fatalf("%d %s", code, body)
	}
	start := strings.Index(body, apiserver.ProgressPrefix+`{"tool":"slow_fetch"}`)
	note := strings.Index(body, apiserver.ProgressPrefix+`{"tool":"slow_fetch","note":"downloading 3 of 7"}`+"\n")
	answer := strings.Index(body, "data: ")
	if start < 0 || note < 0 || !(start < note && note < answer) {
		t.Fatalf("want start comment, note comment, answer in order; got %d %d %d in\n%s", start, note, answer, body)
	}
	http.DefaultClient.CloseIdleConnections()
}
