package config

import (
	"strings"
	"testing"
)

func TestToolsValidation(t *testing.T) {
	for _, tt := range []struct {
		name string
		body string
		want string // "" means it loads
	}{
		{"defaults", `{}`, ""},
		{"sandbox on", `{"shell_sandbox":"workspace","shell_sandbox_allow_network":true,"shell_approval":"always"}`, ""},
		{"denylist inside the sandbox", `{"shell_sandbox":"workspace","shell_screening":"denylist"}`, ""},
		{"web", `{"web":{"backends":["exa","duckduckgo"],"exa_url":"http://127.0.0.1:9/","search_timeout":"30s"}}`, ""},
		{"bad sandbox", `{"shell_sandbox":"yes"}`, "tools.shell_sandbox"},
		{"bad approval", `{"shell_approval":"sometimes"}`, "tools.shell_approval"},
		{"denylist without sandbox", `{"shell_screening":"denylist"}`, "bypassable"},
		{"bad screening", `{"shell_screening":"none"}`, "tools.shell_screening"},
		{"bad allow entry", `{"shell_allow":["ls","/bin/rm"]}`, "tools.shell_allow"},
		{"sub-second shell timeout", `{"shell_timeout":"10ms"}`, "tools.shell_timeout"},
		{"bad backend", `{"web":{"backends":["google"]}}`, "tools.web.backends"},
		{"both exa keys", `{"web":{"exa_api_key":"x","exa_api_key_env":"EXA"}}`, "both exa_api_key"},
		{"bad exa url", `{"web":{"exa_url":"ftp://x"}}`, "tools.web.exa_url"},
		{"sub-second reserve", `{"web":{"finish_reserve":"1ms"}}`, "tools.web.finish_reserve"},
		{"unknown key", `{"shell_sandbox_allow_net":true}`, "shell_sandbox_allow_net"},
		{"shell env", `{"shell_env":["JAVA_HOME","EDITOR_STYLE"]}`, ""},
		{"secret in shell env", `{"shell_env":["JAVA_HOME","OPENAI_API_KEY"]}`, "OPENAI_API_KEY, which is named like a credential"},
		{"bad shell env", `{"shell_env":["A=B"]}`, "tools.shell_env"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Load(writeConfig(t, `{"schema_version":1,"tools":`+tt.body+`}`))
			if tt.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if tt.name == "sandbox on" && (!cfg.Tools.SandboxEnabled() || !cfg.Tools.ShellSandboxAllowNetwork) {
					t.Fatalf("settings not read: %+v", cfg.Tools)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error naming %q", err, tt.want)
			}
		})
	}
}

func TestToolsFromEnvironment(t *testing.T) {
	t.Setenv("JOSHBOT_TOOLS__SHELL_SANDBOX", "workspace")
	t.Setenv("JOSHBOT_TOOLS__SHELL_APPROVAL", "interactive")
	cfg, err := Load(writeConfig(t, `{"schema_version":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Tools.SandboxEnabled() || cfg.Tools.ShellApproval != "interactive" {
		t.Fatalf("env overrides not applied: %+v", cfg.Tools)
	}
	t.Setenv("JOSHBOT_TOOLS__SHELL_APPROVAL", "maybe")
	if _, err := Load(writeConfig(t, `{"schema_version":1}`)); err == nil || !strings.Contains(err.Error(), "tools.shell_approval") {
		t.Fatalf("bad env value: %v", err)
	}
}

func TestExaKey(t *testing.T) {
	w := Web{ExaAPIKeyEnv: "JOSHBOT_TEST_EXA_KEY"}
	t.Setenv("JOSHBOT_TEST_EXA_KEY", "")
	if _, err := w.ExaKey(); err == nil || !strings.Contains(err.Error(), "JOSHBOT_TEST_EXA_KEY") {
		t.Fatalf("unset variable: %v", err)
	}
	t.Setenv("JOSHBOT_TEST_EXA_KEY", " k1 ")
	if k, err := w.ExaKey(); err != nil || k != "k1" {
		t.Fatalf("got %q, %v", k, err)
	}
	if k, _ := (&Web{}).ExaKey(); k != "" {
		t.Fatalf("unconfigured Exa has key %q", k)
	}
}
