package config

import (
	"strings"
	"testing"
)

const withProfiles = `{
  "schema_version": 1,
  "agents": {"defaults": {"provider": "ollama", "model": "llama3.2"}},
  "models_config": {"agent": {"model": "ollama/qwen3", "fallbacks": [{"model": "groq/should-not-be-used", "api_key_env": "JOSHBOT_TEST_GROQ"}]}},
  "profiles": {
    "work": {"model": "groq/llama-3.3-70b-versatile", "api_key_env": "JOSHBOT_TEST_WORK", "description": "team key"},
    "local": {"model": "ollama/llama3.2", "api_base": "http://gpu:11434/v1"},
    "old": {"model": "ollama/x", "disabled": true},
    "broken": {"model": "custom/x"}
  }%s
}`

func profileConfig(t *testing.T, extra string) string {
	t.Helper()
	return writeConfig(t, strings.Replace(withProfiles, "%s", extra, 1))
}

func TestProfileSelection(t *testing.T) {
	t.Setenv("JOSHBOT_TEST_GROQ", "g")
	t.Setenv("JOSHBOT_TEST_WORK", "w")
	for _, tt := range []struct {
		name, extra, flag string
		wantProvider      string
		wantModel         string
		wantProfile       string
		models            int
	}{
		{"no selection leaves the config untouched", "", "", "ollama", "qwen3", "", 2},
		{"default_profile", `, "default_profile": "local"`, "", "ollama", "llama3.2", "local", 1},
		{"flag beats default_profile", `, "default_profile": "local"`, "work", "groq", "llama-3.3-70b-versatile", "work", 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := LoadWith(profileConfig(t, tt.extra), &LoadOptions{Profile: tt.flag})
			if err != nil {
				t.Fatal(err)
			}
			mc, err := cfg.ResolveModelConfig()
			if err != nil {
				t.Fatal(err)
			}
			if m := mc.Models[0]; m.Provider != tt.wantProvider || m.WireModel != tt.wantModel || len(mc.Models) != tt.models || cfg.Profile() != tt.wantProfile {
				t.Fatalf("resolved %+v (%d models), profile %q", m, len(mc.Models), cfg.Profile())
			}
			if tt.wantProfile != "" && !strings.HasPrefix(mc.ModelKey, "profiles."+tt.wantProfile) {
				t.Errorf("ModelKey = %s", mc.ModelKey)
			}
		})
	}
}

func TestProfileErrors(t *testing.T) {
	t.Setenv("JOSHBOT_TEST_GROQ", "g")
	for _, tt := range []struct {
		name, extra, flag string
		want              []string
	}{
		{"unknown lists the configured", "", "nope", []string{`--profile names profile "nope"`, "broken, local, old, work"}},
		{"unknown default", `, "default_profile": "gone"`, "", []string{"default_profile", `"gone"`}},
		{"disabled", "", "old", []string{`profile "old"`, "disabled", "profiles.old.disabled"}},
		{"unset key variable", "", "work", []string{"profiles.work.api_key_env", "JOSHBOT_TEST_WORK"}},
		{"unresolvable after apply", "", "broken", []string{`profile "broken" cannot be used`, "providers.custom.api_base"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadWith(profileConfig(t, tt.extra), &LoadOptions{Profile: tt.flag})
			for _, w := range tt.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("err = %v, want %q", err, w)
				}
			}
		})
	}
}

func TestProfileWithKeyIsFatalEvenUnselected(t *testing.T) {
	body := `{"schema_version":1,"agents":{"defaults":{"provider":"ollama","model":"m"}},
	  "profiles":{"leaky":{"model":"openai/gpt-4o","api_key":"sk-live-abc"}}}`
	_, err := Load(writeConfig(t, body))
	if err == nil || !strings.Contains(err.Error(), "profiles.leaky.api_key_env") {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains(err.Error(), "sk-live-abc") {
		t.Fatal("the key was echoed in the error")
	}
}
