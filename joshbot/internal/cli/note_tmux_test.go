//go:build unix

package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/providers/providertest"
)

// TestTerminalShowsToolNotesUnderTmux runs `joshbot agent` on a real
// terminal: web_search's first leg (a fake exa on PATH) fails, and the
// note that it falls back to DuckDuckGo (a local page) is a line of its
// own between the tool's line and the answer (issue 23 item 4).
func TestTerminalShowsToolNotesUnderTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed (make deps-tmux installs it): the real-terminal test cannot run")
	}
	bin := binary(t)
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	srv.Enqueue(
		providertest.ToolCalls(providertest.Call("web_search", `{"query":"go generics"}`)),
		providertest.Text("found it"),
	)
	ddg := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<a class="result__a" href="https://go.dev/doc/">Go docs</a><a class="result__snippet">Documentation.</a>`)
	}))
	defer ddg.Close()
	fake := t.TempDir()
	if err := os.WriteFile(filepath.Join(fake, "exa"), []byte("#!/bin/sh\necho 'exa: quota exhausted' >&2\nexit 2\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfgPath := scriptedConfig(t, srv)
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Tools.Web.Backends = []string{"exa-cli", "duckduckgo"}
	cfg.Tools.Web.DuckDuckGoURL = ddg.URL
	if err := config.Save(cfgPath, cfg); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	s := &tmuxSession{t: t, socket: fmt.Sprintf("joshbot-note-%d", os.Getpid())}
	script := fmt.Sprintf("HOME=%s PATH=%s:$PATH %s --config %s agent; echo EXIT=$?; sleep 60", home, fake, bin, cfgPath)
	s.tmux("new-session", "-d", "-s", "t", "-x", "100", "-y", "30", "sh", "-c", script)
	t.Cleanup(func() { exec.Command("tmux", "-L", s.socket, "kill-server").Run() })

	s.waitFor("scripted-model>")
	s.keys(true, "search")
	s.keys(false, "Enter")
	scr := s.waitFor("found it")
	tool := strings.Index(scr, "· web_search go generics")
	note := strings.Index(scr, "↳ web_search: falling back to duckduckgo after exa-cli failed")
	answer := strings.Index(scr, "found it")
	if tool < 0 || note < 0 || !(tool < note && note < answer) {
		t.Fatalf("want the tool line, the note line, then the answer:\n%s", scr)
	}
	s.keys(false, "C-d")
}
