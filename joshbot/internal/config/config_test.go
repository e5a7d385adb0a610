package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestDurationForms(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want time.Duration
		bad  bool
	}{
		{`"600s"`, 600 * time.Second, false},
		{`"10m"`, 10 * time.Minute, false},
		{`"1h30m"`, 90 * time.Minute, false},
		{`600`, 600 * time.Second, false},
		{`"600"`, 600 * time.Second, false},
		{`1.5`, 1500 * time.Millisecond, false},
		{`120000000000`, 2 * time.Minute, false}, // nanoseconds written by older builds
		{`0`, 0, false},
		{`null`, 0, false},
		{`"soon"`, 0, true},
		{`-5`, 0, true},
		{`true`, 0, true},
	} {
		var d Duration
		err := json.Unmarshal([]byte(tt.in), &d)
		if tt.bad {
			if err == nil {
				t.Errorf("%s: accepted as %v", tt.in, d.Std())
			}
			continue
		}
		if err != nil || d.Std() != tt.want {
			t.Errorf("%s: got %v, %v; want %v", tt.in, d.Std(), err, tt.want)
		}
	}
	b, _ := json.Marshal(Duration(90 * time.Second))
	if string(b) != `"1m30s"` {
		t.Errorf("marshal = %s, want the string form", b)
	}
}

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

const valid = `{
  "schema_version": 1,
  "agents": {"defaults": {"provider": "custom", "model": "m", "timeout": "90s"}},
  "providers": {"custom": {"api_base": "http://127.0.0.1:9/v1"}}
}`

func TestLoadValidAndDefaults(t *testing.T) {
	cfg, err := Load(writeConfig(t, valid))
	if err != nil {
		t.Fatal(err)
	}
	d := cfg.Agents.Defaults
	if d.Timeout.Std() != 90*time.Second || d.MaxToolIterations != 50 || !d.Streaming {
		t.Fatalf("defaults not applied under the file: %+v", d)
	}
	ep, err := cfg.Endpoint()
	if err != nil {
		t.Fatal(err)
	}
	if ep.BaseURL != "http://127.0.0.1:9/v1" || ep.Model != "m" || ep.APIKey != "" {
		t.Fatalf("endpoint = %+v", ep)
	}
}

func TestLoadErrorsNameWhatToChange(t *testing.T) {
	for _, tt := range []struct {
		name string
		body string
		want []string
	}{
		{"syntax", "{\n  \"schema_version\": 1,\n  \"agents\": {,}\n}", []string{"config.json:3:", "invalid JSON"}},
		{"type", "{\n\"schema_version\": \"one\"}", []string{"config.json:2:", "schema_version"}},
		{"unknown key", `{"schema_version":1,"agents":{"defaults":{"modle":"x"}}}`, []string{`unknown key "agents.defaults.modle"`, `did you mean "model"?`}},
		{"empty", ``, []string{"empty"}},
		{"trailing", valid + "{}", []string{"after the closing brace"}},
		{"sub-second", `{"schema_version":1,"agents":{"defaults":{"timeout":"500ms"}}}`, []string{"agents.defaults.timeout", "unit mistake"}},
		{"sub-second provider", `{"schema_version":1,"providers":{"groq":{"timeout":0.2}}}`, []string{"providers.groq.timeout"}},
		{"bad duration", `{"schema_version":1,"agents":{"defaults":{"timeout":"soon"}}}`, []string{`"soon" is not a duration`}},
		{"newer schema", `{"schema_version":99}`, []string{"newer joshbot"}},
		{"zero schema", `{"schema_version":0}`, []string{"schema_version"}},
		{"max chunks", `{"schema_version":1,"channels":{"discord":{"max_chunks":500}}}`, []string{"channels.discord.max_chunks", "1 to 100"}},
		{"negative iterations", `{"schema_version":1,"agents":{"defaults":{"max_tool_iterations":-1}}}`, []string{"agents.defaults.max_tool_iterations"}},
		{"truncated", "{\n  \"schema_version\": 1,\n  \"agents\": {\"defaults\": {\"model\": \"x\"", []string{"config.json:3:39:", "cut short"}},
		{"truncated in a string", "{\n  \"schema_version\": 1,\n  \"agents\": {\"defaults\": {\"model\": \"gpt", []string{"config.json:3:", "cut short"}},
		{"negative answer cap", `{"schema_version":1,"agents":{"defaults":{"max_answer_bytes":-1}}}`, []string{"agents.defaults.max_answer_bytes"}},
		{"huge answer cap", `{"schema_version":1,"agents":{"defaults":{"max_answer_bytes":33554432}}}`, []string{"agents.defaults.max_answer_bytes", "8388608"}},
		{"tiny compaction threshold", `{"schema_version":1,"agents":{"defaults":{"compaction_threshold":50}}}`, []string{"agents.defaults.compaction_threshold", "-1"}},
		{"memory size", `{"schema_version":1,"agents":{"defaults":{"memory_max_bytes":10}}}`, []string{"agents.defaults.memory_max_bytes"}},
		{"learning", `{"schema_version":1,"agents":{"defaults":{"learning":"yes"}}}`, []string{"agents.defaults.learning", `"off"`}},
		{"learn scope", `{"schema_version":1,"agents":{"defaults":{"learn_scope":"global"}}}`, []string{"agents.defaults.learn_scope"}},
		{"dream mode", `{"schema_version":1,"agents":{"defaults":{"dream_mode":"true"}}}`, []string{"agents.defaults.dream_mode", "record"}},
		{"both keys", `{"schema_version":1,"providers":{"openai":{"api_key":"x","api_key_env":"HOME"}}}`, []string{"providers.openai", "both api_key and api_key_env"}},
		{"unset env", `{"schema_version":1,"providers":{"openai":{"api_key_env":"JOSHBOT_TEST_UNSET_VAR"}}}`, []string{"JOSHBOT_TEST_UNSET_VAR", "not set"}},
	} {
		_, err := Load(writeConfig(t, tt.body))
		if err == nil {
			t.Errorf("%s: loaded", tt.name)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", tt.name, err, w)
			}
		}
	}
}

func TestMissingFileNamesOnboard(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "nope.json"))
	if err == nil || !strings.Contains(err.Error(), "joshbot onboard") {
		t.Fatalf("err = %v", err)
	}
}

func TestCredentialPrecedence(t *testing.T) {
	body := `{"schema_version":1,"agents":{"defaults":{"provider":"openrouter","model":"m"}},
	"providers":{"openrouter":{"api_key_env":"JOSHBOT_TEST_KEY"}}}`
	p := writeConfig(t, body)
	t.Setenv("JOSHBOT_TEST_KEY", "from-key-env")
	cfg, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if ep, _ := cfg.Endpoint(); ep.APIKey != "from-key-env" {
		t.Fatalf("api_key_env not read: %q", ep.APIKey)
	}
	t.Setenv("JOSHBOT_PROVIDERS__OPENROUTER__API_KEY", "from-override")
	cfg, err = Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if ep, _ := cfg.Endpoint(); ep.APIKey != "from-override" {
		t.Fatalf("override must win over api_key_env: %q", ep.APIKey)
	}
}

func TestMissingKeyNamesKeyAndVariable(t *testing.T) {
	cfg, err := Load(writeConfig(t, `{"schema_version":1,"agents":{"defaults":{"provider":"openrouter","model":"m"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = cfg.Endpoint()
	for _, want := range []string{"providers.openrouter.api_key_env", "OPENROUTER_API_KEY", "JOSHBOT_PROVIDERS__OPENROUTER__API_KEY"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err %v lacks %q", err, want)
		}
	}
}

func TestEndpointErrors(t *testing.T) {
	for _, tt := range []struct{ body, want string }{
		{`{"schema_version":1}`, "agents.defaults.provider"},
		{`{"schema_version":1,"agents":{"defaults":{"provider":"nowhere","model":"m"}}}`, "providers.nowhere"},
		{`{"schema_version":1,"agents":{"defaults":{"provider":"ollama"}}}`, "agents.defaults.model"},
		{`{"schema_version":1,"agents":{"defaults":{"provider":"custom","model":"m"}}}`, "providers.custom.api_base"},
		{`{"schema_version":1,"agents":{"defaults":{"provider":"custom","model":"m"}},"providers":{"custom":{"api_base":"ftp://x"}}}`, "not an http(s) URL"},
	} {
		cfg, err := Load(writeConfig(t, tt.body))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cfg.Endpoint(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.body, err, tt.want)
		}
	}
}

func TestEnvOverrides(t *testing.T) {
	cfg := Defaults()
	err := ApplyEnv(cfg, []string{
		"JOSHBOT_AGENTS__DEFAULTS__TIMEOUT=600",
		"JOSHBOT_AGENTS__DEFAULTS__MODEL=gpt-x",
		"JOSHBOT_AGENTS__DEFAULTS__STREAMING=false",
		"JOSHBOT_AGENTS__DEFAULTS__TEMPERATURE=0.3",
		"JOSHBOT_PROVIDERS__GROQ__API_KEY=gsk",
		"JOSHBOT_HOME=/ignored",
		"PATH=/bin",
	})
	if err != nil {
		t.Fatal(err)
	}
	d := cfg.Agents.Defaults
	if d.Timeout.Std() != 10*time.Minute || d.Model != "gpt-x" || d.Streaming || d.Temperature == nil || *d.Temperature != 0.3 {
		t.Fatalf("overrides not applied: %+v", d)
	}
	if cfg.Providers["groq"].APIKey != "gsk" {
		t.Fatalf("provider override not applied: %+v", cfg.Providers)
	}
	for _, tt := range []struct{ env, want string }{
		{"JOSHBOT_AGENTS__DEFAULTS__TIMEOUT=soon", "JOSHBOT_AGENTS__DEFAULTS__TIMEOUT"},
		{"JOSHBOT_AGENTS__DEFAULTS__MAX_TOOL_ITERATIONS=many", "whole number"},
		{"JOSHBOT_AGENTS__NOPE__X=1", `no config key "agents.nope"`},
		{"JOSHBOT_AGENTS__DEFAULTS__STREAMING=maybe", "true or false"},
	} {
		if err := ApplyEnv(Defaults(), []string{tt.env}); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.env, err, tt.want)
		}
	}
}

func TestEnvTimeoutUnderASecondIsFatal(t *testing.T) {
	p := writeConfig(t, valid)
	t.Setenv("JOSHBOT_AGENTS__DEFAULTS__TIMEOUT", "500ms")
	if _, err := Load(p); err == nil || !strings.Contains(err.Error(), "agents.defaults.timeout") {
		t.Fatalf("err = %v", err)
	}
}

func TestSaveIsOwnerOnlyAndRoundTrips(t *testing.T) {
	p := filepath.Join(t.TempDir(), "state", "config.json")
	cfg := Defaults()
	cfg.Agents.Defaults.Provider, cfg.Agents.Defaults.Model = "ollama", "llama3.2"
	if err := Save(p, cfg); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("config mode %v", fi.Mode().Perm())
	}
	if di, _ := os.Stat(filepath.Dir(p)); di.Mode().Perm() != 0o700 {
		t.Fatalf("dir mode %v", di.Mode().Perm())
	}
	back, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if back.Agents.Defaults.Model != "llama3.2" || back.Agents.Defaults.Timeout != cfg.Agents.Defaults.Timeout {
		t.Fatalf("round trip lost data: %+v", back.Agents.Defaults)
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Fatalf("temp files left behind: %v", entries)
	}
}

func TestWorkspaceDir(t *testing.T) {
	cfg := Defaults()
	if w, _ := cfg.WorkspaceDir("/h"); w != "/h/workspace" {
		t.Errorf("default = %s", w)
	}
	cfg.Agents.Defaults.Workspace = "ws2"
	if w, _ := cfg.WorkspaceDir("/h"); w != "/h/ws2" {
		t.Errorf("relative = %s", w)
	}
	home, _ := os.UserHomeDir()
	cfg.Agents.Defaults.Workspace = "~/x"
	if w, _ := cfg.WorkspaceDir("/h"); w != filepath.Join(home, "x") {
		t.Errorf("tilde = %s", w)
	}
}

// TestUnknownKeyNamedWithSuggestion (issue 22 item 4): a misspelt key is
// named by its full path, with the key it most likely meant.
func TestUnknownKeyNamedWithSuggestion(t *testing.T) {
	for _, tt := range []struct{ body, path, suggest string }{
		{`{"agents":{"defaults":{"temprature":0.5}}}`, "agents.defaults.temprature", "temperature"},
		{`{"providers":{"openrouter":{"api_kye_env":"X"}}}`, "providers.openrouter.api_kye_env", "api_key_env"},
		{`{"models_config":{"agent":{"model":"a/b","fallbacks":[{"modle":"x"}]}}}`, "models_config.agent.fallbacks[0].modle", "model"},
		{`{"agents":{"defaults":{"zzzzzzzz":1}}}`, "agents.defaults.zzzzzzzz", ""},
	} {
		path, suggest, ok := unknownKey([]byte(tt.body))
		if !ok || path != tt.path || suggest != tt.suggest {
			t.Errorf("%s: got %q, %q, %v; want %q, %q", tt.body, path, suggest, ok, tt.path, tt.suggest)
		}
	}
	if _, _, ok := unknownKey([]byte(`{"schema_version":1,"agents":{"defaults":{"temperature":0.5}}}`)); ok {
		t.Error("a known key reported unknown")
	}
}
