package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/joshbot/joshbot/providers/providertest"
)

// Under `agent -m` the log lines of the turn go to stderr and to
// joshbot.log in the home, never to stdout: stdout carries the reply
// alone, so `answer=$(joshbot agent -m ...)` captures just the answer
// (the README's "Logs" entry says so).
func TestOneShotLogsStayOffTheReplyStream(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	srv.Enqueue(providertest.ToolCalls(providertest.Call("list_dir", `{}`)))
	srv.Enqueue(providertest.Text("Two files."))
	cfgPath := scriptedConfig(t, srv)
	r := runCLI(t, "", "--config", cfgPath, "--log-level", "debug", "agent", "-m", "what is here?")
	if r.code != 0 {
		t.Fatalf("%+v", r)
	}
	if r.stdout != "Two files.\n" {
		t.Fatalf("stdout holds more than the reply: %q", r.stdout)
	}
	if !strings.Contains(r.stderr, "level=") {
		t.Fatalf("no log line on stderr at --log-level debug: %q", r.stderr)
	}
	b, err := os.ReadFile(filepath.Join(filepath.Dir(cfgPath), logFileName))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(r.stderr), "\n") {
		if strings.Contains(line, "level=") && !strings.Contains(string(b), line) {
			t.Fatalf("log line on stderr missing from %s: %q", logFileName, line)
		}
	}
}
