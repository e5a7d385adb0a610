package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/providers/providertest"
)

// TestOpenAIClientConversations runs the official openai npm package the
// way a stock chat app uses it (whole history, no user field) against a
// live joshbot serve: interleaved chats, a regenerate, an edit and a new
// chat each land in the right conversation (issue 24 item 4).
func TestOpenAIClientConversations(t *testing.T) {
	node := needNode(t)
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	// The model answers with the user messages it was sent, so the script
	// reads from each answer which history the turn ran on.
	srv.SetFallback(func(r providertest.Request) providertest.Reply {
		var users []string
		for _, m := range r.Messages {
			if m.Role == providers.RoleUser {
				users = append(users, m.Content)
			}
		}
		return providertest.Text("seen: " + strings.Join(users, " | "))
	})
	cfgPath := serveConfig(t, srv, nil)
	s := startServe(t, cfgPath)
	out := runScript(t, node, "conversations_client.mjs", s)
	if !strings.Contains(out, "all conversation checks passed") {
		t.Fatal("the script did not reach its end")
	}
	for _, r := range srv.Requests() {
		for _, m := range r.Messages {
			if strings.Contains(m.Content, "CLIENT-SYSTEM") {
				t.Fatalf("the client's system message reached the model as a %s message", m.Role)
			}
		}
	}
	// Chats a and b, the regenerate's fork, the edit's fork, chat c.
	names, err := filepath.Glob(filepath.Join(filepath.Dir(cfgPath), "sessions", "api_chat=*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 5 {
		t.Fatalf("%d derived sessions, want 5: %v", len(names), names)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(cfgPath), "sessions", "api_default.jsonl")); err == nil {
		t.Fatal("a request without user joined api:default")
	}
}
