package cli

import (
	"bytes"
	"github.com/spf13/cobra"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/providers/providertest"
)

// TestAgentMessageFromStdin proves `agent -m -` reads the message from
// stdin, so a message larger than the OS argument limit can be sent.
func TestAgentMessageFromStdin(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	srv.Enqueue(providertest.Text("got it"))
	cfgPath := scriptedConfig(t, srv)
	big := strings.Repeat("a line of the piped message\n", 5000) // 140 kB: past the 128 kB of one argument, under the message cap
	r := runCLI(t, big, "--config", cfgPath, "agent", "-m", "-")
	if r.code != 0 || r.stdout != "got it\n" {
		t.Fatalf("%+v", r)
	}
	store, _ := memory.NewStore(filepath.Join(filepath.Dir(cfgPath), "sessions"))
	sess, err := store.Load(defaultSession)
	if err != nil || len(sess.Messages) != 2 || sess.Messages[0].Content != strings.TrimRight(big, "\n") {
		t.Fatalf("session holds %d messages, %v; first %d bytes %.80q", len(sess.Messages), err, len(sess.Messages[0].Content), sess.Messages[0].Content)
	}
	if r := runCLI(t, "  \n", "--config", cfgPath, "agent", "-m", "-"); r.code == 0 || !strings.Contains(r.stderr, "stdin") {
		t.Fatalf("an empty stdin was accepted: %+v", r)
	}
}

// TestAuthLoginHelpNamesAWayThatExists proves the help of `auth login
// github-copilot` no longer points at an agent flag that does not exist.
func TestAuthLoginHelpNamesAWayThatExists(t *testing.T) {
	r := runCLI(t, "", "auth", "login", "github-copilot", "--help")
	if r.code != 0 || strings.Contains(r.stdout, "--provider") || !strings.Contains(r.stdout, "agents.defaults.provider") {
		t.Fatalf("%+v", r)
	}
}

// TestSessionsExportCreatesOutDir proves --out names a directory that is
// created (mode 0700) when it does not exist.
func TestSessionsExportCreatesOutDir(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	srv.Enqueue(providertest.Text("hi"))
	cfgPath := scriptedConfig(t, srv)
	if r := runCLI(t, "", "--config", cfgPath, "agent", "-m", "hello", "-s", "telegram:42"); r.code != 0 {
		t.Fatalf("%+v", r)
	}
	out := filepath.Join(t.TempDir(), "reports", "bug-17")
	r := runCLI(t, "", "--config", cfgPath, "sessions", "export", "telegram:42", "--out", out)
	if r.code != 0 {
		t.Fatalf("%+v", r)
	}
	fi, err := os.Stat(out)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("out dir %v, %v", fi, err)
	}
	if _, err := os.Stat(filepath.Join(out, "telegram_42.md")); err != nil {
		t.Fatal(err)
	}
}

// TestConfigTypeErrorUsesAnInt proves a config value of the wrong type is
// reported with the right article ("an int", not "a int").
func TestConfigTypeErrorUsesAnInt(t *testing.T) {
	clearProviderEnv(t)
	cfgPath := filepath.Join(t.TempDir(), "config.json")
	os.WriteFile(cfgPath, []byte(`{"schema_version":1,"agents":{"defaults":{"max_tool_iterations":"many"}}}`), 0o600)
	r := runCLI(t, "", "--config", cfgPath, "preflight")
	if r.code == 0 || strings.Contains(r.stderr+r.stdout, "a int") || !strings.Contains(r.stderr+r.stdout, "an int") {
		t.Fatalf("%+v", r)
	}
}

// TestNoProviderMessageIsWholeAndOnce proves the onboard failure without a
// provider keeps its example placeholder and is printed on one line, once.
func TestNoProviderMessageIsWholeAndOnce(t *testing.T) {
	clearProviderEnv(t)
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	r := runCLI(t, "", "--config", filepath.Join(t.TempDir(), "config.json"), "onboard", "--ollama-url", closed.URL)
	if r.code != 1 || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "OPENROUTER_API_KEY=<key>), or start Ollama") || strings.Contains(r.stderr, "REDACTED") {
		t.Fatalf("%+v", r)
	}
}

// changesState are the commands that act rather than report: they are
// the only ones exempt from --output json.
var changesState = map[string]bool{
	"agent": true, "gateway": true, "serve": true, "onboard": true, "auth login": true,
	"sessions prune": true, "sessions new": true, "sessions export": true, "memory consolidate": true,
	"cron remove": true, "cron run": true, "skills trust": true, "skills untrust": true,
	"mcp trust": true, "mcp untrust": true, "incidents clear": true, "tuning reset": true,
}

// TestEveryReportTakesJSON walks the command tree: every command that is
// not listed as acting must have its --output json document recorded by
// TestGoldenJSONDocuments, so a new report cannot ship without one.
func TestEveryReportTakesJSON(t *testing.T) {
	src, err := os.ReadFile("golden_test.go")
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	a := &app{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}
	var walk func(c *cobra.Command, path string)
	walk = func(c *cobra.Command, path string) {
		if c.HasSubCommands() {
			for _, sub := range c.Commands() {
				walk(sub, strings.TrimSpace(path+" "+sub.Name()))
			}
			return
		}
		top, _, _ := strings.Cut(path, " ")
		if changesState[path] || top == "help" || top == "completion" || top == "docs" || c.Hidden {
			return
		}
		quoted := `"` + strings.ReplaceAll(path, " ", `", "`) + `"`
		if !strings.Contains(string(src), quoted) {
			t.Errorf("%s reports but has no --output json golden document in TestGoldenJSONDocuments", path)
		}
	}
	walk(a.rootCommand(), "")
}
