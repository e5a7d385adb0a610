package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
	"github.com/joshbot/joshbot/providers/providertest"
	"github.com/joshbot/joshbot/sandbox"
)

// toolsConfig writes a scripted config with the given tools section and
// returns its path and workspace.
func toolsConfig(t *testing.T, srv *providertest.Server, tc config.Tools) (cfgPath, ws string) {
	t.Helper()
	cfgPath = scriptedConfig(t, srv)
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Tools = tc
	if err := config.Save(cfgPath, cfg); err != nil {
		t.Fatal(err)
	}
	ws = filepath.Join(filepath.Dir(cfgPath), "workspace")
	if err := os.MkdirAll(ws, 0o700); err != nil {
		t.Fatal(err)
	}
	return cfgPath, ws
}

// lastToolResult is the content of the last tool message the model was
// sent in request i.
func lastToolResult(t *testing.T, srv *providertest.Server, i int) string {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) <= i {
		t.Fatalf("only %d requests", len(reqs))
	}
	msgs := reqs[i].Messages
	last := msgs[len(msgs)-1]
	if last.Role != "tool" {
		t.Fatalf("request %d ends with a %s message", i, last.Role)
	}
	return last.Content
}

// TestSecretsNeverInChildEnvOrLogs puts credentials in the environment,
// has the model run `env` through the shell and trip a logged tool error
// carrying a key, then greps everything captured: the child's environment
// as the model saw it, stdout, and the debug log.
func TestSecretsNeverInChildEnvOrLogs(t *testing.T) {
	clearProviderEnv(t)
	secrets := map[string]string{
		"OPENAI_API_KEY":    "sk-proj-FAKESECRET0123456789abcdefABCDEF",
		"ANTHROPIC_API_KEY": "sk-ant-api03-FAKESECRET0123456789abcdef",
		"GITHUB_TOKEN":      "ghp_FAKESECRET0123456789abcdefghijklmn",
		"MY_DB_PASSWORD":    "FAKESECRET-hunter2",
		"JOSHBOT_TEST_EXA":  "exa-FAKESECRET-key",
	}
	for k, v := range secrets {
		t.Setenv(k, v)
	}
	t.Setenv("JOSHBOT_TEST_VISIBLE", "shown-to-child")
	srv := providertest.NewServer(t)
	cfgPath, _ := toolsConfig(t, srv, config.Tools{ShellAllow: []string{"env", "ls"}, ShellEnv: []string{"JOSHBOT_TEST_VISIBLE"}})
	srv.Enqueue(
		providertest.ToolCalls(providertest.Call("shell", `{"command":"env"}`)),
		providertest.ToolCalls(providertest.Call("read_file", `{"path":"notes-`+secrets["OPENAI_API_KEY"]+`.txt"}`)),
		providertest.Text("done"),
	)
	r := runCLI(t, "", "--config", cfgPath, "--log-level", "debug", "agent", "-m", "show me the environment")
	if r.code != 0 {
		t.Fatalf("%+v", r)
	}
	childEnv := lastToolResult(t, srv, 1)
	if !strings.Contains(childEnv, "exit code: 0") || !strings.Contains(childEnv, "PATH=") || !strings.Contains(childEnv, "JOSHBOT_TEST_VISIBLE=shown-to-child") {
		t.Fatalf("env did not run: %q", childEnv)
	}
	if !strings.Contains(r.stderr, "[REDACTED]") {
		t.Fatalf("the tool error carrying a key was not logged (so the log test proves nothing):\n%s", r.stderr)
	}
	for name, v := range secrets {
		for where, text := range map[string]string{"child environment": childEnv, "stdout": r.stdout, "log": r.stderr} {
			if strings.Contains(text, v) || strings.Contains(text, "FAKESECRET") {
				t.Fatalf("%s (%s) appears in the %s:\n%s", name, v, where, text)
			}
		}
		if strings.Contains(childEnv, name+"=") {
			t.Fatalf("%s reached the child environment", name)
		}
	}
}

// TestPipedOneShotDeniesApproval: with tools.shell_approval set and no
// terminal, the command is refused at once rather than waiting.
func TestPipedOneShotDeniesApproval(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	cfgPath, ws := toolsConfig(t, srv, config.Tools{ShellApproval: "always"})
	os.WriteFile(filepath.Join(ws, "present.txt"), []byte("x"), 0o600)
	srv.Enqueue(
		providertest.ToolCalls(providertest.Call("shell", `{"command":"ls"}`)),
		providertest.Text("ok"),
	)
	start := time.Now()
	r := runCLI(t, "y\n", "--config", cfgPath, "agent", "-m", "list files")
	if r.code != 0 {
		t.Fatalf("%+v", r)
	}
	res := lastToolResult(t, srv, 1)
	if !strings.Contains(res, "no human approver") || strings.Contains(res, "present.txt") {
		t.Fatalf("piped run was not denied: %q", res)
	}
	if !strings.Contains(res, "tools.shell_approval") || strings.Contains(res, "ShellOptions") {
		t.Fatalf("the refusal does not name the config key: %q", res)
	}
	if time.Since(start) > 10*time.Second {
		t.Fatal("the denial waited")
	}
}

func TestSandboxWorkspaceUnsupportedIsStartupError(t *testing.T) {
	clearProviderEnv(t)
	noSandbox := func(a *app) {
		a.runtimeSeams = func(o *runtime.Options) {
			o.NewSandbox = func(*sandbox.Policy, *sandbox.Options) (*sandbox.Sandbox, error) {
				return nil, fmt.Errorf("%w: the kernel has no Landlock", sandbox.ErrUnsupported)
			}
		}
	}
	srv := providertest.NewServer(t)
	cfgPath, _ := toolsConfig(t, srv, config.Tools{ShellSandbox: "workspace"})
	r := runCLIWith(t, noSandbox, "", "--config", cfgPath, "agent", "-m", "hi")
	if r.code == 0 || !strings.Contains(r.stderr, "tools.shell_sandbox") || !strings.Contains(r.stderr, "no sandbox is available") {
		t.Fatalf("want a startup error naming tools.shell_sandbox, got %+v", r)
	}
	if len(srv.Requests()) != 0 {
		t.Fatal("the model was called despite the startup error")
	}
}

// TestLibraryRefusalsNameConfigKeys: the sandbox words its refusals in
// its API's names (Policy.AllowNetwork, ScreenOptions.Allow); the binary
// tells its user the config key instead.
func TestLibraryRefusalsNameConfigKeys(t *testing.T) {
	clearProviderEnv(t)
	t.Run("network undeniable", func(t *testing.T) {
		undeniable := func(a *app) {
			a.runtimeSeams = func(o *runtime.Options) {
				o.NewSandbox = func(*sandbox.Policy, *sandbox.Options) (*sandbox.Sandbox, error) {
					return nil, fmt.Errorf("%w: %w: Policy.AllowNetwork", sandbox.ErrUnsupported, sandbox.ErrNetworkUndeniable)
				}
			}
		}
		srv := providertest.NewServer(t)
		cfgPath, _ := toolsConfig(t, srv, config.Tools{ShellSandbox: "workspace"})
		r := runCLIWith(t, undeniable, "", "--config", cfgPath, "agent", "-m", "hi")
		if r.code == 0 || !strings.Contains(r.stderr, "tools.shell_sandbox_allow_network") || strings.Contains(r.stderr, "Policy.") {
			t.Fatalf("want a startup error naming tools.shell_sandbox_allow_network, got %+v", r)
		}
	})
	t.Run("not on the allowlist", func(t *testing.T) {
		srv := providertest.NewServer(t)
		cfgPath, _ := toolsConfig(t, srv, config.Tools{ShellSandbox: "off", ShellScreening: "allowlist"})
		srv.Enqueue(
			providertest.ToolCalls(providertest.Call("shell", `{"command":"make build"}`)),
			providertest.Text("ok"),
		)
		if r := runCLI(t, "", "--config", cfgPath, "agent", "-m", "build it"); r.code != 0 {
			t.Fatalf("%+v", r)
		}
		res := lastToolResult(t, srv, 1)
		if !strings.Contains(res, `"make" is not on the allowlist (tools.shell_allow)`) || strings.Contains(res, "ScreenOptions") {
			t.Fatalf("refusal = %q, want it to name tools.shell_allow", res)
		}
	})
}

// TestSandboxedShellThroughCLI runs a confined command end to end on this
// kernel: the binary (here the test binary) re-executes itself as the
// Landlock helper.
func TestSandboxedShellThroughCLI(t *testing.T) {
	if rep := sandbox.Probe(); !rep.Available || !rep.CanDenyNetwork {
		t.Skipf("no usable sandbox here: %+v", rep)
	}
	clearProviderEnv(t)
	outside := filepath.Join(t.TempDir(), "outside.txt")
	os.WriteFile(outside, []byte("OUTSIDE-CANARY"), 0o600)
	srv := providertest.NewServer(t)
	cfgPath, ws := toolsConfig(t, srv, config.Tools{ShellSandbox: "workspace"})
	// Two turns: a command's output taints its turn, after which a second
	// command would be refused (no human on a piped agent -m) before the
	// sandbox could show what it does.
	srv.Enqueue(
		providertest.ToolCalls(providertest.Call("shell", `{"command":"echo made > made.txt && cat made.txt"}`)),
		providertest.Text("ok"),
		providertest.ToolCalls(providertest.Call("shell", fmt.Sprintf(`{"command":"cat %s"}`, outside))),
		providertest.Text("ok"),
	)
	for range 2 {
		if r := runCLI(t, "", "--config", cfgPath, "agent", "-m", "go"); r.code != 0 {
			t.Fatalf("%+v", r)
		}
	}
	// Shell output reaches the model fenced as untrusted text.
	if res := lastToolResult(t, srv, 1); !strings.HasPrefix(res, "exit code: 0\n<tool_output ") || !strings.Contains(res, "\">\nmade\n</tool_output>") {
		t.Fatalf("write inside: %q", res)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "made.txt")); string(b) != "made\n" {
		t.Fatalf("file not written: %q", b)
	}
	// The private root holds only the workspace and the system: the
	// file outside is not there at all.
	if res := lastToolResult(t, srv, 3); strings.Contains(res, "OUTSIDE-CANARY") || !strings.Contains(res, "No such file or directory") {
		t.Fatalf("read outside: %q", res)
	}
}

func TestOnboardSandboxChoice(t *testing.T) {
	for _, tt := range []struct {
		name      string
		rep       sandbox.Report
		flag      string
		wantOn    bool
		wantLine  string
		wantError string
	}{
		{"auto with landlock", sandbox.Report{Mechanism: "landlock", LandlockABI: 7, Available: true, CanDenyNetwork: true}, "auto", true, "Shell sandbox: on (Landlock ABI 7)", ""},
		{"auto without", sandbox.Report{Reason: "the kernel has no Landlock"}, "auto", false, "not available (the kernel has no Landlock)", ""},
		{"off", sandbox.Report{Mechanism: "landlock", LandlockABI: 7, Available: true, CanDenyNetwork: true}, "off", false, "Shell sandbox: off", ""},
		{"on without", sandbox.Report{Reason: "no Landlock"}, "on", false, "", "--shell-sandbox on"},
		{"bad flag", sandbox.Report{}, "maybe", false, "", "--shell-sandbox \"maybe\""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			clearProviderEnv(t)
			probe := func(a *app) { a.probe = func() sandbox.Report { return tt.rep } }
			t.Setenv("OPENROUTER_API_KEY", "sk-or-v1-test")
			cfgPath := filepath.Join(t.TempDir(), "config.json")
			r := runCLIWith(t, probe, "", "--config", cfgPath, "onboard", "--shell-sandbox", tt.flag)
			if tt.wantError != "" {
				if r.code == 0 || !strings.Contains(r.stderr, tt.wantError) {
					t.Fatalf("%+v", r)
				}
				if _, err := os.Stat(cfgPath); err == nil {
					t.Fatal("config written despite the error")
				}
				return
			}
			if r.code != 0 || !strings.Contains(r.stdout, tt.wantLine) {
				t.Fatalf("%+v", r)
			}
			raw, _ := os.ReadFile(cfgPath)
			var saved struct {
				Tools config.Tools `json:"tools"`
			}
			json.Unmarshal(raw, &saved)
			if saved.Tools.SandboxEnabled() != tt.wantOn {
				t.Fatalf("saved tools %+v, want sandbox %v", saved.Tools, tt.wantOn)
			}
		})
	}
}
