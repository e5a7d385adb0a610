package configedit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/joshbot/joshbot/joshbot/internal/config"
)

func TestSetFileKeyKeepsTheRestAndRefusesInvalid(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	c := config.Defaults()
	c.Agents.Defaults.Provider, c.Agents.Defaults.Model = "custom", "m"
	c.Providers["custom"] = config.Provider{APIKeyEnv: "MY_KEY_VAR", APIBase: "http://localhost:1/v1"}
	if err := config.Save(path, c); err != nil {
		t.Fatal(err)
	}
	if err := SetFileKey(path, "agents.defaults.max_tokens", 100); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	got, err := config.Parse(path, raw)
	if err != nil || got.Agents.Defaults.MaxTokens != 100 || got.Providers["custom"].APIKeyEnv != "MY_KEY_VAR" || got.Agents.Defaults.Model != "m" {
		t.Fatalf("after set: %v %+v", err, got)
	}
	if err := SetFileKey(path, "agents.defaults.timeout", "5ms"); err == nil || !strings.Contains(err.Error(), "agents.defaults.timeout") {
		t.Fatalf("invalid value written: %v", err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(raw) {
		t.Fatal("file changed by a refused edit")
	}
}

func TestParseSafe(t *testing.T) {
	for _, tt := range []struct {
		key, val string
		want     any
		err      string
	}{
		{"agents.defaults.max_tool_iterations", "30", 30, ""},
		{"agents.defaults.timeout", "3m", "3m0s", ""},
		{"agents.defaults.streaming", "false", false, ""},
		{"agents.defaults.temperature", "3", nil, "0 to 2"},
		{"agents.defaults.model", "x", nil, "cannot be changed"},
		{"providers.openai.api_key", "x", nil, "cannot be changed"},
	} {
		v, err := ParseSafe(tt.key, tt.val)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s=%s: err %v, want %q", tt.key, tt.val, err, tt.err)
			}
			continue
		}
		if err != nil || v != tt.want {
			t.Errorf("%s=%s: %v %v", tt.key, tt.val, v, err)
		}
	}
}
