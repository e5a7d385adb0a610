package tools

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/sandbox/fence"
)

// TestSessionSearchSpansThePerson: from the owner's CLI session,
// session_search finds what the owner said on Telegram, the compaction
// archive included, fenced as untrusted; a stranger's session is not found,
// and the stranger does not find the owner's.
func TestSessionSearchSpansThePerson(t *testing.T) {
	store, err := memory.NewStore(filepath.Join(t.TempDir(), "sessions"))
	if err != nil {
		t.Fatal(err)
	}
	ts := time.Date(2026, 3, 4, 5, 6, 0, 0, time.UTC)
	add := func(key, text string, at time.Time) {
		t.Helper()
		if _, err := store.Append(key, memory.Message{Role: "user", Content: text, Time: at}); err != nil {
			t.Fatal(err)
		}
	}
	add("telegram:1", "the boiler code is 4471 for the boiler", ts)
	add("telegram:1", "later chatter", ts.Add(time.Hour))
	sess, err := store.Load("telegram:1")
	if err != nil {
		t.Fatal(err)
	}
	// Compaction moves the boiler message into the archive.
	if err := store.Compact(sess, 1, "summary", ts.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	add("cli:default", "what was the boiler code?", ts.Add(3*time.Hour))
	add("telegram:2", "my boiler is a Vaillant, secret 9999", ts.Add(time.Minute))

	owner := func(key string) string {
		if key == "telegram:1" || strings.HasPrefix(key, "cli:") {
			return memory.SharedScope
		}
		return key
	}
	reg := NewRegistry()
	if err := RegisterSessionSearch(reg, store, owner); err != nil {
		t.Fatal(err)
	}
	out, err := reg.Execute(WithSessionKey(context.Background(), "cli:default"), "session_search", json.RawMessage(`{"query":"boiler"}`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "4471") || !strings.Contains(out, "{archived}") || !strings.Contains(out, "telegram:1") {
		t.Errorf("the owner's CLI search misses the owner's archived Telegram message:\n%s", out)
	}
	if strings.Contains(out, "9999") {
		t.Errorf("the owner's search found a stranger's session:\n%s", out)
	}
	if !fence.Fenced(out) || !strings.Contains(out, `trust="untrusted: `) {
		t.Errorf("results are not fenced as untrusted:\n%s", out)
	}

	out, err = reg.Execute(WithSessionKey(context.Background(), "telegram:2"), "session_search", json.RawMessage(`{"query":"boiler"}`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "9999") || strings.Contains(out, "4471") || strings.Contains(out, "what was") {
		t.Errorf("the stranger's search = \n%s\nwant only their own session", out)
	}
}
