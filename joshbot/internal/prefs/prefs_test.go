package prefs_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/joshbot/internal/prefs"
	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/providers/providertest"
)

// TestModelSurvivesRestartThroughFile runs /model through one agent, then a
// second agent over a freshly opened file, as after a process restart.
func TestModelSurvivesRestartThroughFile(t *testing.T) {
	srv := providertest.NewServer(t)
	client, err := providers.NewClient(&providers.ClientOptions{Name: "s", BaseURL: srv.URL(), APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	store, err := memory.NewStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "session_prefs.json")
	newAgent := func() *agent.Agent {
		p, err := prefs.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		a, err := agent.New(&agent.Options{Provider: client, Model: "default-m", Sessions: store, Prefs: p})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(a.Wait) // background learning writes beside the sessions
		return a
	}
	a := newAgent()
	ctx := context.Background()
	if _, err := a.Process(ctx, agent.Request{SessionKey: "telegram:1", Text: "/model x-model"}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Process(ctx, agent.Request{SessionKey: "telegram:1", Text: "/personality concise"}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("prefs file: %v %v", fi, err)
	}
	b := newAgent()
	srv.Enqueue(providertest.Text("a"), providertest.Text("b"))
	b.Process(ctx, agent.Request{SessionKey: "telegram:1", Text: "hi"})
	b.Process(ctx, agent.Request{SessionKey: "telegram:2", Text: "hi"})
	reqs := srv.Requests()
	if reqs[0].Model != "x-model" || reqs[1].Model != "default-m" {
		t.Fatalf("models after restart: %q, %q", reqs[0].Model, reqs[1].Model)
	}
	if !strings.Contains(reqs[0].Messages[0].Content, "<personality>") {
		t.Fatal("personality lost on restart")
	}
	b.Process(ctx, agent.Request{SessionKey: "telegram:1", Text: "/new"})
	c, _ := prefs.Open(path)
	if p, _ := c.Get("telegram:1"); p != (agent.Prefs{}) {
		t.Fatalf("/new left %+v", p)
	}
}

func TestCorruptFileIsNotOverwritten(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.json")
	os.WriteFile(path, []byte("{broken"), 0o600)
	if _, err := prefs.Open(path); err == nil || !strings.Contains(err.Error(), "fix or remove") {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "{broken" {
		t.Fatal("file changed")
	}
}
