package config

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The synthetic layouts below stand in for future ones: version 1 had
// "agent" at the top, version 2 renamed it "agents", version 3 turned a
// timeout in seconds into a duration string.
var testSteps = map[int]migration{
	1: func(doc map[string]json.RawMessage) error {
		if v, ok := doc["agent"]; ok {
			doc["agents"] = v
			delete(doc, "agent")
		}
		return nil
	},
	2: func(doc map[string]json.RawMessage) error {
		raw, ok := doc["agents"]
		if !ok {
			return nil
		}
		var a map[string]map[string]any
		if err := json.Unmarshal(raw, &a); err != nil {
			return err
		}
		if secs, ok := a["defaults"]["timeout_seconds"].(float64); ok {
			a["defaults"]["timeout"] = fmt.Sprintf("%gs", secs)
			delete(a["defaults"], "timeout_seconds")
		}
		b, err := json.Marshal(a)
		doc["agents"] = b
		return err
	},
}

func TestMigrationSteps(t *testing.T) {
	for _, tt := range []struct {
		name    string
		in      string
		target  int
		want    string // the upgraded agents block, compact
		wantVer int
	}{
		{name: "step 1 to 2 renames agent", in: `{"schema_version":1,"agent":{"defaults":{"model":"m"}}}`, target: 2,
			want: `{"defaults":{"model":"m"}}`, wantVer: 2},
		{name: "step 2 to 3 converts seconds", in: `{"schema_version":2,"agents":{"defaults":{"timeout_seconds":90}}}`, target: 3,
			want: `{"defaults":{"timeout":"90s"}}`, wantVer: 3},
		{name: "1 to 3 runs both in order", in: `{"schema_version":1,"agent":{"defaults":{"timeout_seconds":30}}}`, target: 3,
			want: `{"defaults":{"timeout":"30s"}}`, wantVer: 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, from, err := migrate([]byte(tt.in), tt.target, testSteps)
			if err != nil {
				t.Fatal(err)
			}
			var doc map[string]json.RawMessage
			if err := json.Unmarshal(out, &doc); err != nil {
				t.Fatalf("upgraded document does not parse: %v\n%s", err, out)
			}
			var ver int
			json.Unmarshal(doc["schema_version"], &ver)
			var agents any
			json.Unmarshal(doc["agents"], &agents)
			got, _ := json.Marshal(agents)
			if ver != tt.wantVer || string(got) != tt.want {
				t.Fatalf("version %d agents %s, want %d %s", ver, got, tt.wantVer, tt.want)
			}
			if _, ok := doc["agent"]; ok {
				t.Fatal("the old key survived")
			}
			var in struct {
				SchemaVersion int `json:"schema_version"`
			}
			json.Unmarshal([]byte(tt.in), &in)
			if from != in.SchemaVersion {
				t.Fatalf("from = %d, want %d", from, in.SchemaVersion)
			}
		})
	}
}

func TestMigrateLeavesOthersUntouched(t *testing.T) {
	for _, in := range []string{
		`{"schema_version":3,"agents":{}}`, // current
		`{"schema_version":9}`,             // newer: Validate says upgrade joshbot
		`{"agents":{}}`,                    // missing: Validate names the key
		`{"schema_version":1,`,             // broken: the decoder gives line and column
	} {
		out, _, err := migrate([]byte(in), 3, testSteps)
		if err != nil || string(out) != in {
			t.Errorf("migrate(%s) = %s, %v; want it unchanged", in, out, err)
		}
	}
}

func TestMigrateMissingStepIsFatal(t *testing.T) {
	_, _, err := migrate([]byte(`{"schema_version":1}`), 3, map[int]migration{1: testSteps[1]})
	if err == nil || !strings.Contains(err.Error(), "no migration from version 2 to 3") || IsOrdinary(err) {
		t.Fatalf("err = %v", err)
	}
}

// TestEveryVersionHasAStep keeps the real table whole: a bump of
// SchemaVersion without its step fails here, not on a user's machine.
func TestEveryVersionHasAStep(t *testing.T) {
	for v := 1; v < SchemaVersion; v++ {
		if migrations[v] == nil {
			t.Errorf("no migration from schema_version %d to %d", v, v+1)
		}
	}
	for v := range migrations {
		if v < 1 || v >= SchemaVersion {
			t.Errorf("migration from %d is outside 1..%d", v, SchemaVersion-1)
		}
	}
}

func TestLoadLenient(t *testing.T) {
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
			cfg, fellBack, err := LoadLenient(p, nil)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || cfg != nil {
					t.Fatalf("err = %v, cfg = %v; want a fatal error naming %q", err, cfg != nil, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			if (fellBack != nil) != tt.wantFallback {
				t.Fatalf("fellBack = %v, want fallback %v", fellBack, tt.wantFallback)
			}
			if tt.wantFallback && cfg.Agents.Defaults.MaxToolIterations != Defaults().Agents.Defaults.MaxToolIterations {
				t.Fatal("fallback is not the defaults")
			}
			// The strict load refuses the same file.
			if _, serr := Load(p); (serr != nil) != tt.wantFallback {
				t.Fatalf("strict Load err = %v", serr)
			}
		})
	}
}
