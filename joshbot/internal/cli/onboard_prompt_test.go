package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestOnboardOnTerminal answers the questions in a real terminal: the key
// is not echoed, the config holds it at 0600, and preflight's verdict ends
// the run.
func TestOnboardOnTerminal(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed (make deps-tmux installs it): the real-terminal test cannot run")
	}
	bin := binary(t)
	clearProviderEnv(t)
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "config.json")
	s := &tmuxSession{t: t, socket: fmt.Sprintf("joshbot-onboard-%d", os.Getpid())}
	script := fmt.Sprintf("HOME=%s %s --config %s onboard --shell-sandbox off; echo EXIT=$?; sleep 60", dir, bin, cfgPath)
	s.tmux("new-session", "-d", "-s", "t", "-x", "100", "-y", "40", "sh", "-c", script)
	t.Cleanup(func() { exec.Command("tmux", "-L", s.socket, "kill-server").Run() })
	s.waitFor("Provider [")
	s.keys(true, "openai")
	s.keys(false, "Enter")
	s.waitFor("API key for openai")
	const key = "sk-typedsecret0123456789abcdef"
	s.keys(true, key)
	s.keys(false, "Enter")
	s.waitFor("Model [")
	s.keys(false, "Enter")
	scr := s.waitFor("EXIT=")
	if strings.Contains(scr, "typedsecret") {
		t.Fatalf("the key was echoed:\n%s", scr)
	}
	if !strings.Contains(scr, "Ready: joshbot would start.") || !strings.Contains(scr, "EXIT=0") {
		t.Fatalf("no ready verdict:\n%s", scr)
	}
	fi, err := os.Stat(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("config mode %v", fi.Mode().Perm())
	}
	data, _ := os.ReadFile(cfgPath)
	var cfg struct {
		Providers map[string]struct {
			APIKey string `json:"api_key"`
		} `json:"providers"`
	}
	if err := json.Unmarshal(data, &cfg); err != nil || cfg.Providers["openai"].APIKey != key {
		t.Fatalf("config: %v\n%s", err, data)
	}
}
