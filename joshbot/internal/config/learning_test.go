package config

import (
	"strings"
	"testing"
)

// agents.defaults.learning_model resolves like a model-centric entry: its
// prefix picks the provider and its credential; without a prefix it is a
// model of the agent's own provider.
func TestLearningModel(t *testing.T) {
	t.Setenv("JOSHBOT_TEST_GROQ", "gsk-1")
	t.Setenv("JOSHBOT_TEST_OR", "or-1")
	for _, tt := range []struct {
		name, learning, provider, wire, key string
	}{
		{"prefixed", "groq/llama-3.1-8b-instant", "groq", "llama-3.1-8b-instant", "gsk-1"},
		{"bare id", "small-model", "openrouter", "small-model", "or-1"},
	} {
		cfg, err := Load(writeConfig(t, `{"schema_version":1,
  "agents":{"defaults":{"provider":"openrouter","model":"big-model","learning_model":"`+tt.learning+`"}},
  "providers":{"groq":{"api_key_env":"JOSHBOT_TEST_GROQ"},"openrouter":{"api_key_env":"JOSHBOT_TEST_OR"}}}`))
		if err != nil {
			t.Fatal(err)
		}
		rm, err := cfg.ResolveLearningModel()
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if rm == nil || rm.Provider != tt.provider || rm.WireModel != tt.wire || rm.APIKey != tt.key || rm.Key != "agents.defaults.learning_model" {
			t.Errorf("%s: resolved %+v", tt.name, rm)
		}
	}
}

func TestNoLearningModel(t *testing.T) {
	cfg, err := Load(writeConfig(t, `{"schema_version":1,"agents":{"defaults":{"provider":"ollama","model":"m"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if rm, err := cfg.ResolveLearningModel(); rm != nil || err != nil {
		t.Fatalf("resolved %+v, %v without agents.defaults.learning_model", rm, err)
	}
}

// A learning model whose provider is unknown is an error that names
// agents.defaults.learning_model.
func TestLearningModelErrorNamesTheKey(t *testing.T) {
	cfg, err := Load(writeConfig(t, `{"schema_version":1,"agents":{"defaults":{"provider":"nosuch","learning_model":"m2"}},
  "models_config":{"agent":{"model":"ollama/llama3.2"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cfg.ResolveModelConfig(); err != nil {
		t.Fatalf("the agent's own model: %v", err)
	}
	_, err = cfg.ResolveLearningModel()
	if err == nil || !strings.Contains(err.Error(), "agents.defaults.learning_model") {
		t.Fatalf("err = %v, want it to name agents.defaults.learning_model", err)
	}
}
