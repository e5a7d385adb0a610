package agent_test

import (
	"context"
	"testing"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/providers/providertest"
)

// A turn cut off by a crash leaves a user message with no answer. The next
// turn records it as interrupted, so the session alternates again, and the
// model is told that no answer was saved.
func TestCutOffTurnIsRecordedAsInterrupted(t *testing.T) {
	a, srv, store, _ := setup(t, &agent.Options{Memory: agent.MemoryOptions{DisableLearning: true}})
	if err := store.Save(&memory.Session{Key: "cli:cut", Messages: []memory.Message{
		{Role: "user", Content: "first, never answered"},
		{Role: "user", Content: "second, never answered"},
	}}); err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(providertest.Text("third answered"))
	if _, err := a.Process(context.Background(), agent.Request{SessionKey: "cli:cut", Text: "third", Channel: "cli"}); err != nil {
		t.Fatal(err)
	}
	sess, err := store.Load("cli:cut")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := roles(sess), "user,assistant,user,assistant,user,assistant"; got != want {
		t.Fatalf("roles %s, want %s", got, want)
	}
	for _, i := range []int{1, 3} {
		if m := sess.Messages[i]; m.Kind != memory.KindInterrupted || m.Content != memory.InterruptedText {
			t.Errorf("message %d = %+v, want the interrupted marker", i, m)
		}
	}
	sent := srv.Requests()[0].Messages
	if len(sent) != 6 || sent[2].Role != "assistant" || sent[2].Content != memory.InterruptedText {
		t.Fatalf("the model was not told: %+v", sent)
	}
}
