package memory

import (
	"os"
	"strings"
	"testing"
)

// TestTornTailOfAnInterruptedSaveIsNotDamage: a save appends to the
// session file, and a process killed in the middle of that write leaves
// the file ending in part of a line. Those bytes were never acknowledged,
// so reading the session reports no unreadable line and loading it cuts
// the tail off quietly (preserved in .corrupt all the same), while a bad
// line anywhere else is still damage, counted and warned about.
func TestTornTailOfAnInterruptedSaveIsNotDamage(t *testing.T) {
	s := newTestStore(t)
	const key = "cli:torn"
	sess := &Session{Key: key, Messages: []Message{{Role: "user", Content: "one"}, {Role: "assistant", Content: "two"}}}
	if err := s.Save(sess); err != nil {
		t.Fatal(err)
	}
	path, err := s.Path(key)
	if err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	torn := append(append([]byte{}, good...), `{"role":"user","content":"thr`...)
	if err := os.WriteFile(path, torn, 0o600); err != nil {
		t.Fatal(err)
	}
	fresh, err := NewStore(s.Dir())
	if err != nil {
		t.Fatal(err)
	}
	snap, err := fresh.Read(key)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Unreadable != 0 || !snap.Interrupted || len(snap.Messages) != 2 {
		t.Fatalf("snapshot of a torn tail: unreadable %d, interrupted %v, %d messages; want 0, true, 2", snap.Unreadable, snap.Interrupted, len(snap.Messages))
	}
	logs := captureLogs(t)
	loaded, err := fresh.Load(key)
	if err != nil {
		t.Fatal(err)
	}
	if len(loaded.Messages) != 2 {
		t.Fatalf("loaded %d messages, want 2", len(loaded.Messages))
	}
	if after, _ := os.ReadFile(path); string(after) != string(good) {
		t.Errorf("the torn tail was not cut off:\n%s", after)
	}
	if kept, _ := os.ReadFile(path + ".corrupt"); !strings.Contains(string(kept), `"content":"thr`) {
		t.Errorf("the torn bytes were not preserved: %q", kept)
	}
	if out := logs.String(); strings.Contains(out, "level=WARN") || !strings.Contains(out, "interrupted") {
		t.Errorf("a torn tail should be an info line about an interrupted save, not a warning:\n%s", out)
	}

	// Damage in the middle is still damage.
	bad := append([]byte("not json\n"), good...)
	if err := os.WriteFile(path, bad, 0o600); err != nil {
		t.Fatal(err)
	}
	if snap, err := fresh.Read(key); err != nil || snap.Unreadable != 1 || snap.Interrupted {
		t.Fatalf("a bad first line: %+v %v, want one unreadable line and no interrupted tail", snap, err)
	}
}
