package onboard

import (
	"bufio"
	"context"
	"strings"
	"testing"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/providers/providertest"
	"github.com/joshbot/joshbot/sandbox"
)

// clearProviderEnv hides any real credentials of the machine running the
// tests, so detection sees only what a test sets.
func clearProviderEnv(t testing.TB) {
	t.Helper()
	for _, s := range providers.Known() {
		if s.KeyEnv != "" {
			t.Setenv(s.KeyEnv, "")
		}
	}
}

func TestAsk(t *testing.T) {
	clearProviderEnv(t)
	choices := offered()
	first := choices[0]
	for _, tt := range []struct {
		name, input, secret   string
		wantProvider, wantKey string
		wantModel             string
	}{
		{name: "by name with key", input: first.Name + "\nmy-model\n", secret: "  k-123  ", wantProvider: first.Name, wantKey: "k-123", wantModel: "my-model"},
		{name: "by number, default model", input: "1\n\n", secret: "k", wantProvider: first.Name, wantKey: "k"},
		{name: "retry after a bad answer", input: "nonsense\n1\n\n", secret: "k", wantProvider: first.Name, wantKey: "k"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			f := &Choices{}
			err := Ask(bufio.NewReader(strings.NewReader(tt.input)), &out, func() (string, error) { return tt.secret, nil }, f)
			if err != nil {
				t.Fatal(err)
			}
			if f.Provider != tt.wantProvider || f.APIKey != tt.wantKey || f.Model != tt.wantModel {
				t.Fatalf("got %+v", f)
			}
			if strings.Contains(out.String(), tt.wantKey) && tt.wantKey != "k" {
				t.Fatalf("the key was echoed: %s", out.String())
			}
		})
	}
	// An exported variable is used instead of asking.
	t.Setenv(first.KeyEnv, "from-env")
	f := &Choices{}
	asked := false
	if err := Ask(bufio.NewReader(strings.NewReader("\n\n")), &strings.Builder{}, func() (string, error) { asked = true; return "", nil }, f); err != nil {
		t.Fatal(err)
	}
	if asked || f.APIKey != "" || f.Provider != first.Name {
		t.Fatalf("asked=%v flags=%+v", asked, f)
	}
	// Input that ends early is an error naming the way out.
	if err := Ask(bufio.NewReader(strings.NewReader("")), &strings.Builder{}, nil, &Choices{}); err == nil || !strings.Contains(err.Error(), "--provider") {
		t.Fatalf("err = %v", err)
	}
}

func TestShellConfinementReport(t *testing.T) {
	full := sandbox.Report{Mechanism: "landlock", LandlockABI: 7, Available: true, CanDenyNetwork: true}
	old := sandbox.Report{Mechanism: "landlock", LandlockABI: 3, Available: true}
	none := sandbox.Report{Reason: "the kernel has no Landlock"}
	for _, tt := range []struct {
		name     string
		rep      sandbox.Report
		tools    config.Tools
		confined bool
		want     string
	}{
		{"off, available", full, config.Tools{}, false, "allowlisted commands only (tools.shell_sandbox is off; Landlock ABI 7 available)"},
		{"off, none", none, config.Tools{}, false, "no sandbox here: the kernel has no Landlock"},
		{"on", full, config.Tools{ShellSandbox: "workspace"}, true, "confined (Landlock ABI 7, network denied)"},
		{"on with network", full, config.Tools{ShellSandbox: "workspace", ShellSandboxAllowNetwork: true}, true, "network allowed"},
		{"on, none", none, config.Tools{ShellSandbox: "workspace"}, false, "startup error"},
		{"on, old kernel", old, config.Tools{ShellSandbox: "workspace"}, false, "tools.shell_sandbox_allow_network"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := config.Defaults()
			cfg.Tools = tt.tools
			confined, detail := ShellConfinement(cfg, tt.rep)
			if confined != tt.confined || !strings.Contains(detail, tt.want) {
				t.Fatalf("got %v %q; want %v and %q", confined, detail, tt.confined, tt.want)
			}
		})
	}
}

// TestAskLocalAndCustomServers: Ollama, LiteLLM and a custom
// OpenAI-compatible server are offered; the base URL is checked with one
// GET .../models before it is accepted (a bad one is refused with what
// to fix and asked again), and the listed model is the default.
func TestAskLocalAndCustomServers(t *testing.T) {
	clearProviderEnv(t)
	names := map[string]bool{}
	for _, s := range offered() {
		names[s.Name] = true
	}
	for _, want := range []string{"ollama", "litellm", "custom"} {
		if !names[want] {
			t.Fatalf("%s is not offered: %v", want, names)
		}
	}
	srv := providertest.NewServer(t)
	dead := "http://127.0.0.1:1/v1"
	var out strings.Builder
	f := &Choices{}
	in := "custom\n" + dead + "\n" + srv.URL() + "\n\n"
	if err := Ask(bufio.NewReader(strings.NewReader(in)), &out, nil, f); err != nil {
		t.Fatal(err)
	}
	if f.Provider != "custom" || f.APIBase != srv.URL() || f.Model != "scripted-model" {
		t.Fatalf("got %+v\n%s", f, out.String())
	}
	if !strings.Contains(out.String(), dead+"/models") || !strings.Contains(out.String(), "Check the base URL") {
		t.Fatalf("the bad URL was not refused clearly:\n%s", out.String())
	}
	cfg, err := NewConfig(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	if p := cfg.Providers["custom"]; p.APIBase != srv.URL() || cfg.Agents.Defaults.Model != "scripted-model" {
		t.Fatalf("config %+v", cfg.Providers)
	}
	// Ollama: the default base URL is offered; a blank answer takes it.
	f = &Choices{}
	out.Reset()
	if err := Ask(bufio.NewReader(strings.NewReader("ollama\n"+srv.URL()+"\nmy-model\n")), &out, nil, f); err != nil {
		t.Fatal(err)
	}
	if f.Provider != "ollama" || f.APIBase != srv.URL() || f.Model != "my-model" || !strings.Contains(out.String(), "http://localhost:11434/v1") {
		t.Fatalf("got %+v\n%s", f, out.String())
	}
	// Input that ends while a bad URL is being corrected is an error.
	if err := Ask(bufio.NewReader(strings.NewReader("litellm\n"+dead+"\n")), &strings.Builder{}, nil, &Choices{}); err == nil {
		t.Fatal("no error")
	}
}
