package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/providers/providertest"
)

// TestLearnedFactsFollowThePerson: with a scope resolver, what one person
// said on Telegram is in the prompt of their CLI session, in the file of
// their scope, and in no stranger's prompt.
func TestLearnedFactsFollowThePerson(t *testing.T) {
	for _, tt := range []struct {
		name, ownerScope string
		workspace        bool
	}{
		{"person file", "owner:me", false},
		// The shared scope (MEMORY.md) is proven end to end by the
		// binary's test, where the workspace is the memory's.
	} {
		t.Run(tt.name, func(t *testing.T) {
			ws := t.TempDir()
			resolve := func(key string) string {
				if key == "telegram:1" || strings.HasPrefix(key, "cli:") {
					return tt.ownerScope
				}
				return key
			}
			lt, err := memory.OpenLongTerm(ws, &memory.LongTermOptions{Scope: resolve})
			if err != nil {
				t.Fatal(err)
			}
			opts := &agent.Options{Memory: agent.MemoryOptions{LongTerm: lt}}
			if tt.workspace {
				opts.Workspace = ws
			}
			a, srv, _, _ := setup(t, opts)
			ctx := context.Background()

			srv.Enqueue(providertest.Text("Noted."), providertest.Text(`{"facts": ["The user takes oolong tea, no sugar"]}`))
			if _, err := a.Process(ctx, agent.Request{SessionKey: "telegram:1", Channel: "telegram", Text: "I take oolong, no sugar"}); err != nil {
				t.Fatal(err)
			}
			a.Wait()
			if f, _ := lt.Facts(tt.ownerScope); len(f) != 1 || !strings.Contains(f[0], "oolong") {
				t.Fatalf("facts of scope %q = %q", tt.ownerScope, f)
			}

			srv.Enqueue(providertest.Text("Oolong."), providertest.Text(`{"facts": []}`))
			if _, err := a.Process(ctx, agent.Request{SessionKey: "cli:default", Channel: "cli", Text: "what tea do I take?"}); err != nil {
				t.Fatal(err)
			}
			a.Wait()
			if sys := srv.Requests()[2].Messages[0].Content; !strings.Contains(sys, "oolong") {
				t.Errorf("the CLI prompt lacks what the same person said on Telegram:\n%s", sys)
			}

			srv.Enqueue(providertest.Text("hello"), providertest.Text(`{"facts": []}`))
			if _, err := a.Process(ctx, agent.Request{SessionKey: "telegram:2", Channel: "telegram", Text: "hi, I am new here"}); err != nil {
				t.Fatal(err)
			}
			a.Wait()
			if sys := srv.Requests()[4].Messages[0].Content; !tt.workspace && strings.Contains(sys, "oolong") {
				t.Errorf("a stranger's prompt holds the owner's learned fact:\n%s", sys)
			}
		})
	}
}
