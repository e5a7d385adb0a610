package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/providers/providertest"
)

// TestReportsJSONDeterministic runs every read-only report twice with
// --output json: each is one JSON document with schema_version, and the two
// runs are byte-identical.
func TestReportsJSONDeterministic(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	cfgPath := scriptedConfig(t, srv)
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Channels.Telegram.TokenEnv = "JOSHBOT_TEST_TG_TOKEN"
	cfg.MCP.Servers = map[string]config.MCPServer{
		"files": {Command: "npx", Args: []string{"-y", "server"}, Env: map[string]string{"TOKEN": "sk-abcdefghijklmnopqrstuvwxyz"}},
		"web":   {URL: "https://mcp.example.com/mcp"},
	}
	if err := config.Save(cfgPath, cfg); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"status"}, {"configure", "--list"}, {"auth", "status"}, {"preflight"}, {"profiles", "list"}, {"tuning", "status"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			all := append([]string{"--config", cfgPath, "--output", "json"}, args...)
			first := runCLI(t, "", all...)
			second := runCLI(t, "", all...)
			if first.stdout != second.stdout {
				t.Fatalf("two runs differ:\n%s\n---\n%s", first.stdout, second.stdout)
			}
			var doc map[string]any
			if err := json.Unmarshal([]byte(first.stdout), &doc); err != nil {
				t.Fatalf("not one JSON document: %v\n%s", err, first.stdout)
			}
			// The acceptance reads the documents with jq; where jq
			// is installed the test does too.
			if jq, err := exec.LookPath("jq"); err == nil {
				cmd := exec.Command(jq, "-e", ".schema_version == 1")
				cmd.Stdin = strings.NewReader(first.stdout)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("jq: %v\n%s", err, out)
				}
			}
			if doc["schema_version"] != float64(1) {
				t.Fatalf("schema_version = %v", doc["schema_version"])
			}
			if strings.Contains(first.stdout, "abcdefghijklmnop") {
				t.Fatalf("credential in the report:\n%s", first.stdout)
			}
			text := runCLI(t, "", append([]string{"--config", cfgPath}, args...)...)
			if text.stdout == "" || strings.Contains(text.stdout, "abcdefghijklmnop") {
				t.Fatalf("text report empty or leaking:\n%s", text.stdout)
			}
		})
	}
}

func TestStatusReportsStoredState(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	srv.Enqueue(providertest.Text("one"), providertest.Text("two"))
	cfgPath := scriptedConfig(t, srv)
	for _, s := range []string{"cli:a", "cli:b"} {
		if r := runCLI(t, "", "--config", cfgPath, "agent", "-s", s, "-m", "hi"); r.code != 0 {
			t.Fatalf("%+v", r)
		}
	}
	r := runCLI(t, "", "--config", cfgPath, "--output", "json", "status")
	var doc struct {
		Ready    bool `json:"ready"`
		Sessions int  `json:"sessions"`
		Models   []struct {
			WireModel string `json:"wire_model"`
			APIHost   string `json:"api_host"`
		} `json:"models"`
		MCPServers []any `json:"mcp_servers"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	if !doc.Ready || doc.Sessions != 2 || len(doc.Models) != 1 || doc.Models[0].WireModel != "scripted-model" || doc.MCPServers == nil {
		t.Fatalf("status = %+v\n%s", doc, r.stdout)
	}
}

func TestReportErrorDocument(t *testing.T) {
	clearProviderEnv(t)
	p := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(p, []byte(`{"schema_version":1,`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"status"}, {"configure", "--list"}, {"auth", "status"}} {
		r := runCLI(t, "", append([]string{"--config", p, "--output", "json"}, args...)...)
		var doc struct {
			SchemaVersion int `json:"schema_version"`
			Error         struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || r.code != 1 || doc.SchemaVersion != 1 || doc.Error.Code != 1 || !strings.Contains(doc.Error.Message, "config") {
			t.Fatalf("%v: %+v (%v)", args, r, err)
		}
	}
}

func TestConfigureListSourcesAndSecrets(t *testing.T) {
	clearProviderEnv(t)
	p := filepath.Join(t.TempDir(), "config.json")
	body := `{"schema_version":1,"agents":{"defaults":{"max_tokens":100}},"providers":{"custom":{"api_base":"http://127.0.0.1:1/v1","api_key":"sk-abcdefghijklmnopqrstuvwxyz"}}}`
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("JOSHBOT_AGENTS__DEFAULTS__MAX_TOOL_ITERATIONS", "7")
	r := runCLI(t, "", "--config", p, "--output", "json", "configure", "--list")
	var doc struct {
		Settings []struct{ Key, Value, Source string } `json:"settings"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	got := map[string]string{}
	for _, s := range doc.Settings {
		got[s.Key] = s.Value + " " + s.Source
	}
	for k, want := range map[string]string{
		"agents.defaults.max_tokens":          "100 file",
		"agents.defaults.max_tool_iterations": "7 environment",
		"agents.defaults.timeout":             `"2m0s" default`,
		"providers.custom.api_key":            "(set) file",
	} {
		if got[k] != want {
			t.Errorf("%s = %q, want %q", k, got[k], want)
		}
	}
	if strings.Contains(r.stdout, "abcdefghijklmnop") {
		t.Fatalf("credential listed:\n%s", r.stdout)
	}
}
