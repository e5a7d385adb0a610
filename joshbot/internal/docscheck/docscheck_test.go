package docscheck

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/providers/providertest"
)

func TestCheckWritesEvidencedFindings(t *testing.T) {
	srv := providertest.NewServer(t)
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "README.md"), []byte("Run `joshbot start`.\n"), 0o644)
	os.MkdirAll(filepath.Join(root, "cmd"), 0o755)
	os.WriteFile(filepath.Join(root, "cmd", "main.go"), []byte("package docscheck // commands: agent\n"), 0o644)
	srv.Enqueue(
		providertest.ToolCalls(providertest.Call("read_file", `{"path":"README.md"}`)),
		// The checker may try to write; it has no such tool.
		providertest.ToolCalls(providertest.Call("write_file", `{"path":"README.md","content":"x"}`)),
		providertest.Text("Here you go:\n```json\n"+`{"findings":[
 {"title":"README names a start command that does not exist","doc":"README.md","evidence":["cmd/main.go:1"],"proposal":"Say joshbot agent."},
 {"title":"Vague feeling","doc":"README.md","evidence":[],"proposal":"?"},
 {"title":"Invented file","doc":"docs/x.md","evidence":["cmd/nothere.go:3","/etc/passwd","../outside.go"],"proposal":"?"}
]}`+"\n```"),
	)
	client, err := providers.NewClient(&providers.ClientOptions{Name: "custom", BaseURL: srv.URL()})
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(t.TempDir(), "workspace")
	rep, err := Check(context.Background(), &Options{
		Root: root, Workspace: ws, Provider: client, Model: "scripted-model",
		Now: func() time.Time { return time.Date(2026, 3, 4, 23, 0, 0, 0, time.FixedZone("x", -3600)) },
	})
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(ws, "reports", "doc-drift-2026-03-05.md") // the date is UTC's
	if rep.Path != want || rep.Kept != 1 || rep.Dropped != 2 {
		t.Fatalf("report %+v, want %s with 1 kept and 2 dropped", rep, want)
	}
	report, err := os.ReadFile(rep.Path)
	if err != nil {
		t.Fatal(err)
	}
	r := string(report)
	if !strings.Contains(r, "README names a start command") || !strings.Contains(r, "`cmd/main.go:1`") {
		t.Fatalf("evidenced finding missing:\n%s", r)
	}
	if strings.Contains(r, "Vague feeling") || strings.Contains(r, "Invented file") {
		t.Fatalf("unevidenced findings kept:\n%s", r)
	}
	if !strings.Contains(r, "2 findings without an evidence path were dropped") {
		t.Fatalf("drop count missing:\n%s", r)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "README.md")); string(b) != "Run `joshbot start`.\n" {
		t.Fatalf("the checker changed the tree: %q", b)
	}
	// The model was offered the four reading tools and nothing else.
	reqs := srv.Requests()
	var names []string
	for _, d := range reqs[0].Tools {
		names = append(names, d.Function.Name)
	}
	if strings.Join(names, ",") != "glob,grep,list_dir,read_file" {
		t.Fatalf("tools offered: %v", names)
	}
}

func TestKeepEvidenced(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.go"), nil, 0o644)
	kept, dropped := keepEvidenced([]finding{
		{Title: "ok", Evidence: []evidence{{Path: "a.go:3"}, {Path: "missing.go"}}},
		{Title: "none"},
		{Title: "", Evidence: []evidence{{Path: "a.go"}}},
		{Title: "dir", Evidence: []evidence{{Path: "."}}},
		{Title: "never ran", Evidence: []evidence{{Command: "make docs", Output: "invented"}}},
	}, root, nil)
	if len(kept) != 1 || dropped != 4 || len(kept[0].Evidence) != 1 || kept[0].Evidence[0].Path != "a.go:3" {
		t.Fatalf("kept %+v dropped %d", kept, dropped)
	}
}

func TestCheckNeedsItsOptions(t *testing.T) {
	client, err := providers.NewClient(&providers.ClientOptions{Name: "custom", BaseURL: "http://127.0.0.1:1/v1"})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, nil, 0o600)
	for _, tt := range []struct {
		name string
		opts *Options
		want string
	}{
		{"nil", nil, "Options.Provider, Model and Workspace are required"},
		{"no model", &Options{Root: ".", Workspace: t.TempDir(), Provider: client}, "are required"},
		{"root is a file", &Options{Root: file, Workspace: t.TempDir(), Provider: client, Model: "m"}, "Options.Root"},
	} {
		if _, err := Check(context.Background(), tt.opts); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
}
