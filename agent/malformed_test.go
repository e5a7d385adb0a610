package agent_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/providers/providertest"
)

// A primary that streams garbage then [DONE] is a failed provider: the
// configured fallback answers, and no empty answer is saved or shown.
func TestMalformedStreamFallsBack(t *testing.T) {
	for _, stream := range []bool{true, false} {
		t.Run(map[bool]string{true: "streamed", false: "plain"}[stream], func(t *testing.T) {
			a, prim, back, store := chainAgent(t, false)
			prim.Enqueue(providertest.MalformedStream())
			back.Enqueue(providertest.Text("Hello from the fallback."))
			ctx := context.Background()
			var shown strings.Builder
			if stream {
				ctx = agent.WithSink(ctx, func(ev agent.StreamEvent) { shown.WriteString(ev.Delta) })
			}
			reply, err := a.Process(ctx, agent.Request{SessionKey: "cli:m", Text: "hi"})
			if err != nil {
				t.Fatalf("Process: %v (reply %+v)", err, reply)
			}
			if !strings.HasSuffix(reply.Text, "\nHello from the fallback.") || !strings.Contains(reply.Notice, "answered by groq") {
				t.Fatalf("reply = %+v; want the fallback's answer with its notice", reply)
			}
			if stream && shown.String() != "Hello from the fallback." {
				t.Errorf("streamed %q", shown.String())
			}
			assertNoEmptyAnswer(t, store, "cli:m")
			if got := lastContent(t, store, "cli:m"); got != "Hello from the fallback." {
				t.Errorf("stored answer = %q", got)
			}
		})
	}
}

// With every model garbling its answer the turn fails with the typed
// error, and the session keeps the user's line but no empty answer.
func TestMalformedStreamEverywhereFails(t *testing.T) {
	a, prim, back, store := chainAgent(t, false)
	prim.Enqueue(providertest.MalformedStream())
	back.Enqueue(providertest.MalformedStream())
	ctx := agent.WithSink(context.Background(), func(agent.StreamEvent) {})
	reply, err := a.Process(ctx, agent.Request{SessionKey: "cli:m", Text: "hi"})
	if err == nil || !errors.Is(err, providers.ErrAllFailed) {
		t.Fatalf("Process = %+v, %v; want a failed turn", reply, err)
	}
	if strings.Contains(reply.Text, "empty answer") || !strings.HasPrefix(reply.Text, "Error: ") {
		t.Errorf("reply = %q; want the failure explained", reply.Text)
	}
	assertNoEmptyAnswer(t, store, "cli:m")
}

func assertNoEmptyAnswer(t *testing.T, store *memory.Store, key string) {
	t.Helper()
	sess, err := store.Load(key)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range sess.Messages {
		if m.Role == providers.RoleAssistant && m.Content == "" && len(m.ToolCalls) == 0 {
			t.Fatalf("session %s saved an empty assistant message: %+v", key, sess.Messages)
		}
	}
}

func lastContent(t *testing.T, store *memory.Store, key string) string {
	t.Helper()
	sess, err := store.Load(key)
	if err != nil || len(sess.Messages) == 0 {
		t.Fatalf("load %s: %v, %d messages", key, err, len(sess.Messages))
	}
	return sess.Messages[len(sess.Messages)-1].Content
}
