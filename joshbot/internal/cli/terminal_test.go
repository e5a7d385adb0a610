package cli

import (
	"strings"
	"testing"

	"github.com/joshbot/joshbot/providers/providertest"
)

// TestPipedConversationStopsAtAFailure: on piped input the first failed
// turn ends the conversation with exit code 1, so a pipeline sees it; the
// lines after it are never sent.
func TestPipedConversationStopsAtAFailure(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	srv.Enqueue(providertest.Text("first answer"), providertest.Error(400, "bad request from the script"))
	cfgPath := scriptedConfig(t, srv)
	r := runCLI(t, "hello\nbreak it\nnever sent\n", "--config", cfgPath, "agent")
	if r.code != 1 || r.stdout != "first answer\n" || !strings.Contains(r.stderr, "joshbot: ") {
		t.Fatalf("%+v", r)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Fatalf("%d requests, want 2", n)
	}
}
