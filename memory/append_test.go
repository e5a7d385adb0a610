//go:build unix

package memory

import (
	"bytes"
	"os"
	"syscall"
	"testing"
)

func inode(t *testing.T, path string) uint64 {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return info.Sys().(*syscall.Stat_t).Ino
}

func msg(role, text string) Message { return Message{Role: role, Content: text} }

// A save that only adds messages appends them to the file this Store last
// wrote (same inode: no new file, no rename), and the session reads back
// whole, through the cache and from another Store alike.
func TestSaveAppendsWhenOnlyAdding(t *testing.T) {
	dir := t.TempDir()
	s, err := NewStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	sess := &Session{Key: "api:x", Messages: []Message{msg("user", "one"), msg("assistant", "two")}}
	if err := s.Save(sess); err != nil {
		t.Fatal(err)
	}
	path, _ := s.Path(sess.Key)
	ino := inode(t, path)
	for i, add := range [][]Message{{msg("user", "three")}, {msg("assistant", "four"), msg("user", "five")}} {
		sess.Messages = append(sess.Messages, add...)
		save := s.Save
		if i == 0 {
			save = s.Stage
		}
		if err := save(sess); err != nil {
			t.Fatal(err)
		}
		if got := inode(t, path); got != ino {
			t.Fatalf("save %d rewrote the file (inode %d, was %d) instead of appending", i, got, ino)
		}
	}
	for _, st := range []*Store{s, mustStore(t, dir)} {
		got, err := st.Load(sess.Key)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Messages) != 5 || got.Messages[4].Content != "five" || got.Messages[0].Content != "one" {
			t.Fatalf("loaded %+v", got.Messages)
		}
	}
}

func mustStore(t *testing.T, dir string) *Store {
	t.Helper()
	s, err := NewStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A file another writer changed since, or a session whose earlier
// messages changed, is rewritten whole: the saved session is exactly what
// was saved, never the old file with lines added.
func TestSaveRewritesWhatIsNotAnAppend(t *testing.T) {
	dir := t.TempDir()
	a, b := mustStore(t, dir), mustStore(t, dir)
	sess := &Session{Key: "api:x", Messages: []Message{msg("user", "one"), msg("assistant", "two")}}
	if err := a.Save(sess); err != nil {
		t.Fatal(err)
	}
	// Another process writes the session (same length, other text).
	other := &Session{Key: "api:x", Messages: []Message{msg("user", "ONE"), msg("assistant", "TWO")}}
	if err := b.Save(other); err != nil {
		t.Fatal(err)
	}
	sess.Messages = append(sess.Messages, msg("user", "three"))
	if err := a.Save(sess); err != nil {
		t.Fatal(err)
	}
	got, _ := mustStore(t, dir).Load("api:x")
	if len(got.Messages) != 3 || got.Messages[0].Content != "one" {
		t.Fatalf("after another writer: %+v", got.Messages)
	}
	// An earlier message replaced (a compaction, a cut).
	sess.Messages = []Message{msg("user", "summary"), msg("user", "three"), msg("assistant", "four")}
	if err := a.Save(sess); err != nil {
		t.Fatal(err)
	}
	got, _ = mustStore(t, dir).Load("api:x")
	if len(got.Messages) != 3 || got.Messages[0].Content != "summary" {
		t.Fatalf("after a cut: %+v", got.Messages)
	}
}

// An append that fails half way (a full disk) leaves the file as it was,
// and the next save still writes the whole session.
func TestFailedAppendLeavesTheFile(t *testing.T) {
	dir := t.TempDir()
	s := mustStore(t, dir)
	sess := &Session{Key: "api:x", Messages: []Message{msg("user", "one"), msg("assistant", "two")}}
	if err := s.Save(sess); err != nil {
		t.Fatal(err)
	}
	path, _ := s.Path(sess.Key)
	before, _ := os.ReadFile(path)
	s.wrapWriter = (&fullDisk{match: "api_x.jsonl", budget: 10}).wrap
	sess.Messages = append(sess.Messages, msg("user", "a longer third message that does not fit"))
	if err := s.Save(sess); err == nil {
		t.Fatal("a save on a full disk succeeded")
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Fatalf("a failed append changed the file:\nbefore %q\nafter  %q", before, after)
	}
	s.wrapWriter = nil
	if err := s.Save(sess); err != nil {
		t.Fatal(err)
	}
	got, _ := mustStore(t, dir).Load("api:x")
	if len(got.Messages) != 3 {
		t.Fatalf("after the disk freed up: %+v", got.Messages)
	}
}
