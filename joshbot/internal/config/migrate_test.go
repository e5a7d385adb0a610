package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/joshbot/joshbot/joshbot/internal/configmigrate"
)

// TestMigrateMissingStepIsFatal checks that a file no step can upgrade
// is a fatal error, which is never classed ordinary.
func TestMigrateMissingStepIsFatal(t *testing.T) {
	rename := func(doc map[string]json.RawMessage) error { return nil }
	_, err := upgrade("c.json", []byte(`{"schema_version":1}`), 3, map[int]configmigrate.Step{1: rename})
	if err == nil || !strings.Contains(err.Error(), "no migration from version 2 to 3") || IsOrdinary(err) {
		t.Fatalf("err = %v", err)
	}
}

// TestEveryVersionHasAStep keeps the real table whole: a bump of
// SchemaVersion without its step fails here, not on a user's machine.
func TestEveryVersionHasAStep(t *testing.T) {
	for v := 1; v < SchemaVersion; v++ {
		if configmigrate.Steps[v] == nil {
			t.Errorf("no migration from schema_version %d to %d", v, v+1)
		}
	}
	for v := range configmigrate.Steps {
		if v < 1 || v >= SchemaVersion {
			t.Errorf("migration from %d is outside 1..%d", v, SchemaVersion-1)
		}
	}
}

// TestLoadClassifiesMistakes: every mistake stops the load (no command
// starts on defaults), and each is classed ordinary or fatal.
func TestLoadClassifiesMistakes(t *testing.T) {
	for _, tt := range []struct {
		name         string
		body         string
		wantFallback bool
		wantErr      string
	}{
		{name: "valid", body: `{"schema_version":1}`},
		{name: "iterations out of range", body: `{"schema_version":1,"agents":{"defaults":{"max_tool_iterations":-3}}}`, wantFallback: true},
		{name: "temperature", body: `{"schema_version":1,"agents":{"defaults":{"temperature":7}}}`, wantFallback: true},
		{name: "unknown key", body: `{"schema_version":1,"agents":{"defaults":{"modle":"x"}}}`, wantFallback: true},
		{name: "bad duration", body: `{"schema_version":1,"agents":{"defaults":{"timeout":"soon"}}}`, wantErr: "soon"},
		{name: "tiny duration", body: `{"schema_version":1,"agents":{"defaults":{"timeout":"5ms"}}}`, wantErr: "unit mistake"},
		{name: "bad api_url", body: `{"schema_version":1,"channels":{"telegram":{"api_url":"ftp://x"}}}`, wantErr: "api_url"},
		{name: "profile holds key", body: `{"schema_version":1,"profiles":{"p":{"model":"openai/gpt-4o","api_key":"sk-abcdefghijklmnopqrstuvwx"}}}`, wantErr: "profiles.p.api_key"},
		{name: "both key and env", body: `{"schema_version":1,"providers":{"openai":{"api_key":"k","api_key_env":"X"}}}`, wantErr: "api_key_env"},
		{name: "unset key variable", body: `{"schema_version":1,"providers":{"openai":{"api_key_env":"JOSHBOT_TEST_UNSET_VAR"}}}`, wantErr: "JOSHBOT_TEST_UNSET_VAR"},
		{name: "newer schema", body: `{"schema_version":99}`, wantErr: "newer joshbot"},
		{name: "broken JSON", body: `{"schema_version":1,`, wantErr: "config"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "config.json")
			if err := os.WriteFile(p, []byte(tt.body), 0o600); err != nil {
				t.Fatal(err)
			}
			cfg, err := Load(p)
			switch {
			case tt.wantErr == "" && !tt.wantFallback:
				if err != nil {
					t.Fatalf("err = %v", err)
				}
			case err == nil || cfg != nil:
				t.Fatalf("a mistake loaded: cfg = %v", cfg != nil)
			case tt.wantFallback != IsOrdinary(err):
				t.Fatalf("IsOrdinary(%v) = %v, want %v", err, IsOrdinary(err), tt.wantFallback)
			case tt.wantErr != "" && !strings.Contains(err.Error(), tt.wantErr):
				t.Fatalf("err = %v, want it to name %q", err, tt.wantErr)
			}
		})
	}
}
