package config

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestModelCentricResolution(t *testing.T) {
	t.Setenv("JOSHBOT_TEST_GROQ", "gsk-1")
	t.Setenv("JOSHBOT_TEST_POOL", "pool-1")
	cfg, err := Load(writeConfig(t, `{
  "schema_version": 1,
  "agents": {"defaults": {"provider": "openrouter", "model": "ignored-legacy"}},
  "providers": {
    "groq": {"api_key_env": "JOSHBOT_TEST_GROQ", "timeout": "30s", "max_retries": 4},
    "poolside": {"api_key_env": "JOSHBOT_TEST_POOL", "extra_body": {"chat_template_kwargs": {"enable_thinking": true}}},
    "lab": {"api_base": "https://user:secret@lab.example:8443/v1"}
  },
  "models_config": {"agent": {
    "model": "groq/llama-3.3-70b-versatile",
    "fallbacks": [
      {"model": "poolside/laguna-m", "max_retries": 0, "extra_body": {"top_k": 5}},
      {"model": "lab/qwen3"},
      {"model": "ollama/llama3.2", "api_base": "http://gpu:11434/v1"}
    ]
  }}
}`))
	if err != nil {
		t.Fatal(err)
	}
	mc, err := cfg.ResolveModelConfig()
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Key, Provider, Wire, Base, Key2 string
		Cred                            CredentialSource
		Timeout                         time.Duration
		Retries                         int
	}
	var got []row
	for _, m := range mc.Models {
		got = append(got, row{m.Key, m.Provider, m.WireModel, m.BaseURL, m.APIKey, m.Credential, m.Timeout, m.MaxRetries})
	}
	want := []row{
		{"models_config.agent", "groq", "llama-3.3-70b-versatile", "https://api.groq.com/openai/v1", "gsk-1", CredentialSource{"api_key_env", "JOSHBOT_TEST_GROQ"}, 30 * time.Second, 4},
		{"models_config.agent.fallbacks[0]", "poolside", "poolside/laguna-m", "https://api.poolside.ai/v1", "pool-1", CredentialSource{"api_key_env", "JOSHBOT_TEST_POOL"}, 0, 0},
		{"models_config.agent.fallbacks[1]", "lab", "qwen3", "https://user:secret@lab.example:8443/v1", "", CredentialSource{Kind: "none"}, 0, 2},
		{"models_config.agent.fallbacks[2]", "ollama", "llama3.2", "http://gpu:11434/v1", "", CredentialSource{Kind: "none"}, 0, 2},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("resolved (-want +got):\n%s", diff)
	}
	if eb := mc.Models[1].ExtraBody; eb["top_k"] != float64(5) || eb["chat_template_kwargs"] == nil {
		t.Errorf("extra_body not merged: %v", eb)
	}
	if mc.ModelKey != "models_config.agent.model" {
		t.Errorf("ModelKey = %s", mc.ModelKey)
	}
	if Host(mc.Models[2].BaseURL) != "lab.example:8443" {
		t.Errorf("Host = %q", Host(mc.Models[2].BaseURL))
	}
	// Endpoint is the primary, as before.
	if ep, err := cfg.Endpoint(); err != nil || ep.Provider != "groq" || ep.Model != "llama-3.3-70b-versatile" {
		t.Errorf("Endpoint = %+v, %v", ep, err)
	}
}

func TestEnvOverrideModelAndCredentialSource(t *testing.T) {
	t.Setenv("JOSHBOT_TEST_GROQ", "gsk-1")
	p := writeConfig(t, `{"schema_version":1,"providers":{"groq":{"api_key_env":"JOSHBOT_TEST_GROQ"}},
	  "models_config":{"agent":{"model":"groq/a"}}}`)
	t.Setenv("JOSHBOT_MODELS_CONFIG__AGENT__MODEL", "groq/b")
	t.Setenv("JOSHBOT_PROVIDERS__GROQ__API_KEY", "override")
	cfg, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	mc, err := cfg.ResolveModelConfig()
	if err != nil {
		t.Fatal(err)
	}
	m := mc.Models[0]
	if m.WireModel != "b" || m.APIKey != "override" || m.Credential != (CredentialSource{"env-override", "JOSHBOT_PROVIDERS__GROQ__API_KEY"}) {
		t.Fatalf("resolved %+v", m)
	}
}

func TestResolveErrorCodes(t *testing.T) {
	for _, tt := range []struct {
		body, code, want string
	}{
		{`{"schema_version":1}`, CodeNoDefaultProvider, "agents.defaults.provider"},
		{`{"schema_version":1,"models_config":{"agent":{"model":"mystery-model"}}}`, CodeNoDefaultProvider, "models_config.agent.provider"},
		{`{"schema_version":1,"agents":{"defaults":{"provider":"nowhere","model":"m"}}}`, CodeProviderNotEnabled, "providers.nowhere"},
		{`{"schema_version":1,"models_config":{"agent":{"model":"x","provider":"nowhere"}}}`, CodeProviderNotEnabled, "providers.nowhere"},
		{`{"schema_version":1,"models_config":{"agent":{"model":"openai/gpt-4o"}}}`, CodeMissingCredential, "JOSHBOT_PROVIDERS__OPENAI__API_KEY"},
		{`{"schema_version":1,"models_config":{"agent":{"model":"ollama/x","fallbacks":[{"model":"groq/y"}]}}}`, CodeMissingCredential, "providers.groq.api_key_env"},
		{`{"schema_version":1,"models_config":{"agent":{"model":"custom/x"}}}`, CodeUnresolvable, "providers.custom.api_base"},
		{`{"schema_version":1,"models_config":{"agent":{"model":"ollama/x","api_base":"ftp://user:pw@h/"}}}`, CodeUnresolvable, "models_config.agent.api_base"},
		{`{"schema_version":1,"models_config":{"agent":{"model":"ollama/x","fallbacks":[{"model":"ollama/y","fallbacks":[{"model":"ollama/z"}]}]}}}`, CodeUnresolvable, "cannot have fallbacks"},
	} {
		cfg, err := Load(writeConfig(t, tt.body))
		if err != nil {
			t.Fatalf("%s: %v", tt.body, err)
		}
		_, err = cfg.ResolveModelConfig()
		var re *ResolveError
		if !errors.As(err, &re) || re.Code != tt.code || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s:\n err = %v (code %v), want %s mentioning %q", tt.body, err, re, tt.code, tt.want)
		}
		if strings.Contains(err.Error(), "pw@") {
			t.Errorf("userinfo leaked into %q", err)
		}
	}
}

func TestMaxRetriesRange(t *testing.T) {
	for _, tt := range []struct{ body, want string }{
		{`{"schema_version":1,"providers":{"groq":{"max_retries":11}}}`, "providers.groq.max_retries is 11"},
		{`{"schema_version":1,"providers":{"groq":{"max_retries":-1}}}`, "providers.groq.max_retries is -1"},
		{`{"schema_version":1,"models_config":{"agent":{"model":"ollama/x","fallbacks":[{"model":"ollama/y","max_retries":99}]}}}`, "models_config.agent.fallbacks[0].max_retries"},
		{`{"schema_version":1,"models_config":{"agent":{"model":"ollama/x","timeout":"100ms"}}}`, "models_config.agent.timeout"},
		{`{"schema_version":1,"models_config":{"agent":{"model":"ollama/x","api_key":"a","api_key_env":"HOME"}}}`, "models_config.agent sets both"},
		{`{"schema_version":1,"models_config":{"agent":{"model":"ollama/x","api_key_env":"JOSHBOT_TEST_UNSET"}}}`, "models_config.agent.api_key_env names JOSHBOT_TEST_UNSET"},
	} {
		if _, err := Load(writeConfig(t, tt.body)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.body, err, tt.want)
		}
	}
	zero := 0
	cfg, err := Load(writeConfig(t, `{"schema_version":1,"agents":{"defaults":{"provider":"ollama","model":"m"}},"providers":{"ollama":{"max_retries":0}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if mc, _ := cfg.ResolveModelConfig(); mc.Models[0].MaxRetries != zero {
		t.Errorf("max_retries 0 not kept: %d", mc.Models[0].MaxRetries)
	}
}
