//go:build unix

package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/providers/providertest"
	"github.com/joshbot/joshbot/sandbox"
)

// TestDocsCheckVerifiesOnATerminal runs `joshbot docs check` on a real
// terminal with the sandbox on: the checker asks to run the README's
// command, the person types y, the command runs confined, and the report's
// finding carries the command and the output it really printed (issue 23
// item 6).
func TestDocsCheckVerifiesOnATerminal(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed (make deps-tmux installs it): the real-terminal test cannot run")
	}
	if rep := sandbox.Probe(); !rep.Available {
		t.Skipf("no sandbox on this system: %s", rep.Reason)
	}
	bin := binary(t)
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	srv.Enqueue(
		providertest.ToolCalls(providertest.Call("shell", `{"command":"sh tool.sh --version"}`)),
		providertest.Text(`{"findings":[{"title":"README's version is wrong","doc":"README.md","evidence":[{"command":"sh tool.sh --version","output":"?"}],"proposal":"Say 1.0."}]}`),
	)
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "README.md"), []byte("`sh tool.sh --version` prints 2.0.\n"), 0o644)
	os.WriteFile(filepath.Join(root, "tool.sh"), []byte("echo \"tool version 1.0\"\n"), 0o644)
	cfgPath := scriptedConfig(t, srv)
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	cfg.Agents.Defaults.Workspace = ws
	cfg.Tools.ShellSandbox = "workspace"
	if err := config.Save(cfgPath, cfg); err != nil {
		t.Fatal(err)
	}
	s := &tmuxSession{t: t, socket: fmt.Sprintf("joshbot-docs-%d", os.Getpid())}
	script := fmt.Sprintf("HOME=%s %s --config %s docs check --root %s; echo EXIT=$?; sleep 60", t.TempDir(), bin, cfgPath, root)
	s.tmux("new-session", "-d", "-s", "t", "-x", "120", "-y", "30", "sh", "-c", script)
	t.Cleanup(func() { exec.Command("tmux", "-L", s.socket, "kill-server").Run() })

	scr := s.waitFor("Run it? [y]es / [N]o:")
	if !strings.Contains(scr, "joshbot wants to run a shell command (sandboxed)") || !strings.Contains(scr, "$   sh tool.sh --version") {
		t.Fatalf("approval prompt:\n%s", scr)
	}
	s.keys(true, "y")
	s.keys(false, "Enter")
	scr = s.waitFor("EXIT=")
	if !strings.Contains(scr, "1 findings (0 dropped for lack of evidence)") || !strings.Contains(scr, "EXIT=0") {
		t.Fatalf("docs check did not finish well:\n%s", scr)
	}
	reports, _ := filepath.Glob(filepath.Join(ws, "reports", "doc-drift-*.md"))
	if len(reports) != 1 {
		t.Fatalf("reports %v", reports)
	}
	b, _ := os.ReadFile(reports[0])
	if r := string(b); !strings.Contains(r, "ran `sh tool.sh --version`, which printed:") || !strings.Contains(r, "tool version 1.0") {
		t.Fatalf("report:\n%s", r)
	}
}
