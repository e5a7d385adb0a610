package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/providers/providertest"
)

// An answer over MaxAnswerBytes is kept whole in a workspace file; the
// session and the user get the same capped text with a reference to it,
// streamed or not, so nothing is shown that is not saved.
func TestAnswerOverTheCapGoesToAWorkspaceFile(t *testing.T) {
	const limit = 1000
	long := strings.Repeat("word ", 1000) + "THE END" // 5,007 bytes
	for _, streamed := range []bool{false, true} {
		name := "plain"
		if streamed {
			name = "streamed"
		}
		t.Run(name, func(t *testing.T) {
			a, srv, store, ws := setup(t, &agent.Options{Memory: agent.MemoryOptions{DisableLearning: true}, Limits: agent.LimitOptions{MaxAnswerBytes: limit}})
			srv.Enqueue(providertest.Reply{Content: long, Chunks: 40})
			ctx := context.Background()
			var shown strings.Builder
			if streamed {
				ctx = agent.WithSink(ctx, func(ev agent.StreamEvent) { shown.WriteString(ev.Delta) })
			}
			reply, err := a.Process(ctx, agent.Request{SessionKey: "cli:long", Text: "write a lot", Channel: "cli"})
			if err != nil {
				t.Fatal(err)
			}
			sess, err := store.Load("cli:long")
			if err != nil {
				t.Fatal(err)
			}
			stored := sess.Messages[len(sess.Messages)-1].Content
			if reply.Text != stored {
				t.Fatalf("the user was shown something else than the session keeps:\nshown  %q\nstored %q", clipTail(reply.Text), clipTail(stored))
			}
			if streamed && shown.String() != stored {
				t.Fatalf("the stream showed something else than the session keeps:\nshown  %q\nstored %q", clipTail(shown.String()), clipTail(stored))
			}
			if !strings.HasPrefix(stored, long[:limit-1]) || strings.Contains(stored, "THE END") || len(stored) > limit+400 {
				t.Fatalf("stored answer is not the capped text plus a note: %d bytes, ends %q", len(stored), clipTail(stored))
			}
			files, _ := filepath.Glob(filepath.Join(ws, "answers", "*.md"))
			if len(files) != 1 {
				t.Fatalf("answer files %v, want one", files)
			}
			full, err := os.ReadFile(files[0])
			if err != nil || string(full) != long {
				t.Fatalf("the answer file does not hold the whole answer (%d bytes, %v)", len(full), err)
			}
			if rel, _ := filepath.Rel(ws, files[0]); !strings.Contains(stored, rel) {
				t.Fatalf("the stored answer does not name %s: %q", rel, clipTail(stored))
			}
		})
	}
}

func clipTail(s string) string {
	if len(s) > 300 {
		return "…" + s[len(s)-300:]
	}
	return s
}
