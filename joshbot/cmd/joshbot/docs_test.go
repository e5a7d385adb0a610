package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/providers/providertest"
)

func TestDocsCheckWritesEvidencedFindings(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "README.md"), []byte("Run `joshbot start`.\n"), 0o644)
	os.MkdirAll(filepath.Join(root, "cmd"), 0o755)
	os.WriteFile(filepath.Join(root, "cmd", "main.go"), []byte("package main // commands: agent\n"), 0o644)
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
	cfgPath := scriptedConfig(t, srv)
	var out, errb strings.Builder
	a := &app{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, configPath: cfgPath, logLevel: "warn",
		now: func() time.Time { return time.Date(2026, 3, 4, 23, 0, 0, 0, time.UTC) }}
	if err := a.setupLogging(); err != nil {
		t.Fatal(err)
	}
	defer a.closeLog()
	if err := a.docsCheck(context.Background(), root); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	cfg, _ := config.Load(cfgPath)
	ws, _ := cfg.WorkspaceDir(filepath.Dir(cfgPath))
	report, err := os.ReadFile(filepath.Join(ws, "reports", "doc-drift-2026-03-04.md"))
	if err != nil {
		t.Fatalf("%v; stdout %s", err, out.String())
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
	kept, dropped := keepEvidenced([]driftFinding{
		{Title: "ok", Evidence: []string{"a.go:3", "missing.go"}},
		{Title: "none"},
		{Title: "", Evidence: []string{"a.go"}},
		{Title: "dir", Evidence: []string{"."}},
	}, root)
	if len(kept) != 1 || dropped != 3 || len(kept[0].Evidence) != 1 || kept[0].Evidence[0] != "a.go:3" {
		t.Fatalf("kept %+v dropped %d", kept, dropped)
	}
}
