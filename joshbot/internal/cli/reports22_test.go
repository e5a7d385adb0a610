package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/joshbot/joshbot/joshbot/internal/output"
)

// TestPreflightRunsStartupValidation (issue 22 item 1): a config that
// agent refuses (an unset exa_api_key_env) is not "Ready" for preflight or
// status, every problem is reported, and status exits non-zero.
func TestPreflightRunsStartupValidation(t *testing.T) {
	clearProviderEnv(t)
	only := writeRaw(t, `{"schema_version":1,
	  "providers":{"custom":{"api_base":"http://127.0.0.1:9/v1"}},
	  "models_config":{"agent":{"model":"custom/local"}},
	  "tools":{"web":{"exa_api_key_env":"JOSHBOT_TEST_EXA_UNSET"}}}`, "")
	a := runCLI(t, "", "--config", only, "agent", "-m", "hi")
	if a.code != 1 || !strings.Contains(a.stderr, "JOSHBOT_TEST_EXA_UNSET") {
		t.Fatalf("agent = %+v", a)
	}
	if r := runCLI(t, "", "--config", only, "preflight"); r.code != 1 || !strings.Contains(r.stdout, "JOSHBOT_TEST_EXA_UNSET") {
		t.Fatalf("preflight says ready for a config agent refuses: %+v", r)
	}
	s := runCLI(t, "", "--config", only, "status")
	if s.code == 0 || !strings.Contains(s.stdout, "Not ready") || !strings.Contains(s.stdout, "JOSHBOT_TEST_EXA_UNSET") {
		t.Fatalf("status = %+v", s)
	}

	// Two problems: both are reported.
	cfg := writeRaw(t, `{"schema_version":1,
	  "providers":{"custom":{"api_base":"http://127.0.0.1:9/v1"}},
	  "models_config":{"agent":{"model":"custom/local","fallbacks":[{"model":"groq/llama-3.3-70b-versatile"}]}},
	  "tools":{"web":{"exa_api_key_env":"JOSHBOT_TEST_EXA_UNSET"}}}`, "")
	r := runCLI(t, "", "--config", cfg, "--output", "json", "preflight")
	var doc output.Preflight
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("%v\n%+v", err, r)
	}
	if r.code != 1 || doc.Ready {
		t.Fatalf("preflight = %+v", r)
	}
	var exa, groq bool
	for _, p := range doc.Problems {
		exa = exa || strings.Contains(p.Message, "JOSHBOT_TEST_EXA_UNSET")
		groq = groq || strings.Contains(p.Message, "groq")
	}
	if !exa || !groq {
		t.Fatalf("want both problems (exa key and the groq fallback), got %+v", doc.Problems)
	}
}

// TestAuthStatusResolvesKeyEnv (item 2): the credential of the config
// onboard writes (api_key_env) is reported as present and in use.
func TestAuthStatusResolvesKeyEnv(t *testing.T) {
	clearProviderEnv(t)
	t.Setenv("JOSHBOT_TEST_OR_KEY", secret)
	cfg := writeRaw(t, `{"schema_version":1,
	  "providers":{"openrouter":{"api_key_env":"JOSHBOT_TEST_OR_KEY"}},
	  "agents":{"defaults":{"provider":"openrouter","model":"openai/gpt-4o-mini"}}}`, "")
	p := runCLI(t, "", "--config", cfg, "preflight")
	if p.code != 0 {
		t.Fatalf("preflight = %+v", p)
	}
	r := runCLI(t, "", "--config", cfg, "--output", "json", "auth", "status")
	var doc output.AuthStatus
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || r.code != 0 {
		t.Fatalf("%v\n%+v", err, r)
	}
	if len(doc.Problems) != 0 {
		t.Errorf("problems = %+v", doc.Problems)
	}
	found := false
	for _, e := range doc.Providers {
		if e.Provider == "openrouter" {
			found = true
			if !e.Used || !e.Set || e.Credential.Source != "api_key_env" || e.Credential.Variable != "JOSHBOT_TEST_OR_KEY" {
				t.Errorf("openrouter = %+v", e)
			}
		}
	}
	if !found {
		t.Fatalf("no openrouter entry: %+v", doc.Providers)
	}
	if strings.Contains(r.stdout+r.stderr, secret) {
		t.Error("auth status leaks the key")
	}
}

// TestDaemonTypoNamesTheKey (item 4): a misspelt key under gateway or
// serve stops it with the real cause, the key named with a suggestion,
// and never a second, misleading "no provider configured".
func TestDaemonTypoNamesTheKey(t *testing.T) {
	clearProviderEnv(t)
	t.Setenv("JOSHBOT_TEST_OR_KEY", secret)
	cfg := writeRaw(t, `{"schema_version":1,
	  "providers":{"openrouter":{"api_key_env":"JOSHBOT_TEST_OR_KEY"}},
	  "agents":{"defaults":{"provider":"openrouter","model":"openai/gpt-4o-mini","temprature":0.5}}}`, "")
	for _, args := range [][]string{{"gateway"}, {"serve", "--listen", "127.0.0.1:0"}} {
		r := runCLI(t, "", append([]string{"--config", cfg}, args...)...)
		if r.code == 0 || !strings.Contains(r.stderr, "temprature") || !strings.Contains(r.stderr, `"temperature"`) {
			t.Errorf("%s: want the unknown key named with a suggestion: %+v", args[0], r)
		}
		for _, bad := range []string{"no provider configured", "using defaults"} {
			if strings.Contains(r.stderr, bad) {
				t.Errorf("%s: misleading %q:\n%s", args[0], bad, r.stderr)
			}
		}
	}
}

// TestEnvOverrideBeatsKeyEnv (item 5): JOSHBOT_PROVIDERS__<NAME>__API_KEY
// wins over an api_key_env whose variable is unset.
func TestEnvOverrideBeatsKeyEnv(t *testing.T) {
	clearProviderEnv(t)
	t.Setenv("JOSHBOT_PROVIDERS__OPENROUTER__API_KEY", secret)
	cfg := writeRaw(t, `{"schema_version":1,
	  "providers":{"openrouter":{"api_key_env":"JOSHBOT_TEST_OR_UNSET"}},
	  "agents":{"defaults":{"provider":"openrouter","model":"openai/gpt-4o-mini"}}}`, "")
	r := runCLI(t, "", "--config", cfg, "--output", "json", "preflight")
	var doc output.Preflight
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("%v\n%+v", err, r)
	}
	if r.code != 0 || !doc.Ready || len(doc.Models) == 0 || doc.Models[0].Credential.Variable != "JOSHBOT_PROVIDERS__OPENROUTER__API_KEY" {
		t.Fatalf("override refused: %+v", r)
	}
}

// configureList runs configure --list on body and returns key → "value
// source", with the result.
func configureList(t *testing.T, body string, args ...string) (map[string]string, result) {
	t.Helper()
	p := writeRaw(t, body, "")
	r := runCLI(t, "", append([]string{"--config", p, "--output", "json", "configure", "--list"}, args...)...)
	var doc struct {
		Settings []struct{ Key, Value, Source string } `json:"settings"`
	}
	_ = json.Unmarshal([]byte(r.stdout), &doc)
	got := map[string]string{}
	for _, s := range doc.Settings {
		got[s.Key] = s.Value + " " + s.Source
	}
	return got, r
}

// TestConfigureListIsTheTruth (item 3): configure --list refuses what the
// other commands refuse, lists every settable key (not only those with a
// value in the encoded config), and labels each with its true source.
func TestConfigureListIsTheTruth(t *testing.T) {
	clearProviderEnv(t)
	if _, r := configureList(t, `{"schema_version":1,"agents":{"defaults":{"timeout":"500ms"}}}`); r.code == 0 || !strings.Contains(r.stdout+r.stderr, "agents.defaults.timeout") {
		t.Fatalf("a config agent refuses was listed: %+v", r)
	}
	t.Setenv("JOSHBOT_TEST_OR_KEY", secret)
	t.Setenv("JOSHBOT_TOOLS__WEB__SEARCH_TIMEOUT", "40s")
	body := `{"schema_version":1,
	  "providers":{"openrouter":{"api_key_env":"JOSHBOT_TEST_OR_KEY"}},
	  "agents":{"defaults":{"provider":"openrouter","model":"openai/gpt-4o-mini","max_tokens":100}},
	  "profiles":{"cheap":{"model":"openrouter/meta-llama/llama-3.1-8b-instruct"}}}`
	got, r := configureList(t, body)
	if r.code != 0 {
		t.Fatalf("%+v", r)
	}
	if len(got) < 60 {
		t.Errorf("%d keys listed, want every settable key:\n%s", len(got), r.stdout)
	}
	for k, want := range map[string]string{
		"agents.defaults.timeout":             `"2m0s" default`,
		"agents.defaults.max_tokens":          "100 file",
		"agents.defaults.max_tool_iterations": "50 default",
		"agents.defaults.temperature":         "null default",
		"tools.web.search_timeout":            `"40s" environment`,
		"providers.openrouter.api_key_env":    `"JOSHBOT_TEST_OR_KEY" file`,
		"providers.openrouter.api_key":        "(set) environment",
		"tools.shell_sandbox":                 `"" default`,
	} {
		if got[k] != want {
			t.Errorf("%s = %q, want %q", k, got[k], want)
		}
	}
	prof, r := configureList(t, body, "--profile", "cheap")
	if r.code != 0 || prof["models_config.agent.model"] != `"openrouter/meta-llama/llama-3.1-8b-instruct" profile` {
		t.Errorf("with --profile: models_config.agent.model = %q (%+v)", prof["models_config.agent.model"], r)
	}
	if strings.Contains(r.stdout, secret) {
		t.Error("a credential was listed")
	}
}
