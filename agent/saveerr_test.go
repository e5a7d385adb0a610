package agent_test

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/providers/providertest"
)

// A turn whose answer arrived but whose session cannot be written returns
// the answer together with an error that says it was not saved, so a
// surface can show both instead of losing the answer.
func TestUnsavedTurnStillReturnsTheAnswer(t *testing.T) {
	a, srv, store, _ := setup(t, &agent.Options{Memory: agent.MemoryOptions{DisableLearning: true}})
	srv.SetFallback(func(providertest.Request) providertest.Reply {
		// The sessions directory goes away while the model thinks:
		// the save at the end of the turn cannot write its file.
		os.RemoveAll(store.Dir())
		os.WriteFile(store.Dir(), []byte("not a directory"), 0o600)
		return providertest.Text("the answer")
	})
	reply, err := a.Process(context.Background(), agent.Request{SessionKey: "cli:unsaved", Text: "q", Channel: "cli"})
	if !errors.Is(err, agent.ErrNotSaved) {
		t.Fatalf("err = %v, want one that wraps ErrNotSaved", err)
	}
	var se *agent.SaveError
	if !errors.As(err, &se) || se.Session != "cli:unsaved" || se.DiskFull() {
		t.Fatalf("err = %#v, want a *SaveError for cli:unsaved, not a full disk", err)
	}
	if reply == nil || reply.Text != "the answer" {
		t.Fatalf("reply = %+v, want the model's answer", reply)
	}
}
