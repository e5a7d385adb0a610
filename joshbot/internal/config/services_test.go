package config

import (
	"errors"
	"strings"
	"testing"
)

func TestServices(t *testing.T) {
	t.Setenv("JOSHBOT_TEST_GROQ", "g")
	cfg, err := Load(writeConfig(t, `{"schema_version":1,
	  "providers":{"groq":{"api_key_env":"JOSHBOT_TEST_GROQ","timeout":"20s"}},
	  "stt":{"provider":"groq"},
	  "embeddings":{"provider":"ollama"}}`))
	if err != nil {
		t.Fatal(err)
	}
	stt, err := cfg.ResolveSTT()
	if err != nil || stt.Model != "whisper-large-v3" || stt.APIKey != "g" || stt.BaseURL != "https://api.groq.com/openai/v1" || stt.Timeout.Seconds() != 20 {
		t.Fatalf("stt = %+v, %v", stt, err)
	}
	emb, err := cfg.ResolveEmbeddings()
	if err != nil || emb.Model != "nomic-embed-text" || emb.APIKey != "" || emb.Credential.Kind != "none" {
		t.Fatalf("embeddings = %+v, %v", emb, err)
	}

	for _, tt := range []struct{ body, want string }{
		{`{"schema_version":1}`, "stt.provider is not set"},
		{`{"schema_version":1,"stt":{"provider":"nvidia"},"providers":{"nvidia":{"api_key":"k"}}}`, "stt.model"},
		{`{"schema_version":1,"stt":{"provider":"openai"}}`, "providers.openai.api_key_env"},
		{`{"schema_version":1,"stt":{"provider":"elsewhere"}}`, "no providers.elsewhere entry"},
	} {
		cfg, err := Load(writeConfig(t, tt.body))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cfg.ResolveSTT(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.body, err, tt.want)
		}
	}
	cfg, _ = Load(writeConfig(t, `{"schema_version":1}`))
	if _, err := cfg.ResolveEmbeddings(); !errors.Is(err, ErrNotConfigured) {
		t.Errorf("err = %v", err)
	}
}
