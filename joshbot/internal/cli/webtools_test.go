//go:build unix

package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/providers/providertest"
)

// TestScriptedFilesystemWebChainAndProfiles runs issue 23's items 3, 5 and
// 10 through the binary with the scripted provider: the model writes a
// file with the filesystem tool, searches code with exa-cli failing (a
// fake exa on PATH) so DuckDuckGo (a local page) answers, marked
// degraded, and lists the subagent profiles.
func TestScriptedFilesystemWebChainAndProfiles(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	cfgPath := scriptedConfig(t, srv)
	ddg := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<a class="result__a" href="https://go.dev/doc/">Go docs</a><a class="result__snippet">Documentation.</a>`)
	}))
	defer ddg.Close()
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "exa"), []byte("#!/bin/sh\necho 'exa: quota exhausted' >&2\nexit 2\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	cfg.Agents.Defaults.Workspace = ws
	cfg.Tools.Web.Backends = []string{"exa-cli", "duckduckgo"}
	cfg.Tools.Web.DuckDuckGoURL = ddg.URL
	cfg.Agents.Profiles = map[string]config.AgentProfile{"coder": {Description: "writes code"}}
	if err := config.Save(cfgPath, cfg); err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(
		providertest.ToolCalls(providertest.Call("filesystem", `{"operation":"write_file","path":"notes/n.txt","content":"hello"}`)),
		providertest.ToolCalls(providertest.Call("web_code", `{"query":"go generics"}`)),
		providertest.ToolCalls(providertest.Call("subagent_profiles", `{"operation":"list"}`)),
		providertest.Text("done"),
	)
	r := runCLI(t, "", "--config", cfgPath, "agent", "-m", "go")
	if r.code != 0 || !strings.Contains(r.stdout, "done") {
		t.Fatalf("%+v", r)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "notes", "n.txt")); err != nil || string(b) != "hello" {
		t.Fatalf("file written through filesystem: %q, %v", b, err)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests", len(reqs))
	}
	offered := map[string]bool{}
	for _, d := range reqs[0].Tools {
		offered[d.Function.Name] = true
	}
	for _, n := range []string{"filesystem", "read_file", "write_file", "subagent_profiles", "web_search", "web_code", "web_company", "web_research"} {
		if !offered[n] {
			t.Errorf("%s not offered to the model", n)
		}
	}
	last := func(i int) string { m := reqs[i].Messages; return m[len(m)-1].Content }
	if got := last(2); !strings.Contains(got, "Degraded/best-effort: results from DuckDuckGo after Exa failed: exa-cli: ") ||
		!strings.Contains(got, "quota exhausted") || !strings.Contains(got, "https://go.dev/doc/") {
		t.Fatalf("web_code result: %q", got)
	}
	if got := last(3); !strings.Contains(got, "coder: writes code") {
		t.Fatalf("subagent_profiles result: %q", got)
	}
}
