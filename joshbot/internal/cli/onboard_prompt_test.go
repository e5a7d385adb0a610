package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/joshbot/joshbot/providers/providertest"
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

// TestOnboardCustomServerOnTerminal picks a custom OpenAI-compatible
// server in a real terminal: a base URL that does not answer
// GET /v1/models is refused with what to fix and asked again, and the
// config is written only with the one that answers, its model the
// default.
func TestOnboardCustomServerOnTerminal(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed (make deps-tmux installs it): the real-terminal test cannot run")
	}
	bin := binary(t)
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "config.json")
	s := &tmuxSession{t: t, socket: fmt.Sprintf("joshbot-onboard-custom-%d", os.Getpid())}
	script := fmt.Sprintf("HOME=%s %s --config %s onboard --shell-sandbox off; echo EXIT=$?; sleep 60", dir, bin, cfgPath)
	s.tmux("new-session", "-d", "-s", "t", "-x", "150", "-y", "40", "sh", "-c", script)
	t.Cleanup(func() { exec.Command("tmux", "-L", s.socket, "kill-server").Run() })
	s.waitFor("Provider [")
	s.keys(true, "custom")
	s.keys(false, "Enter")
	s.waitFor("Base URL of the OpenAI-compatible server")
	s.keys(true, "http://127.0.0.1:1/v1")
	s.keys(false, "Enter")
	s.waitFor("Check the base URL")
	if _, err := os.Stat(cfgPath); err == nil {
		t.Fatal("the config was written before the base URL answered")
	}
	s.keys(true, srv.URL())
	s.keys(false, "Enter")
	s.waitFor("Model [scripted-model]")
	s.keys(false, "Enter")
	scr := s.waitFor("EXIT=")
	if !strings.Contains(scr, "EXIT=0") || !strings.Contains(scr, "provider custom, model scripted-model") {
		t.Fatalf("onboarding did not finish:\n%s", scr)
	}
	data, _ := os.ReadFile(cfgPath)
	var cfg struct {
		Providers map[string]struct {
			APIBase string `json:"api_base"`
		} `json:"providers"`
	}
	if err := json.Unmarshal(data, &cfg); err != nil || cfg.Providers["custom"].APIBase != srv.URL() {
		t.Fatalf("config: %v\n%s", err, data)
	}
}
