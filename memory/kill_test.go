package memory

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/joshbot/joshbot/memory/atomicfile"
	"github.com/joshbot/joshbot/memory/atomicfile/atomicfiletest"
)

// ageTemps makes every temporary file in dir an hour old, as it would be
// when the program starts again after a crash.
func ageTemps(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	old := time.Now().Add(-time.Hour)
	for _, e := range entries {
		if atomicfile.IsTemp(e.Name()) {
			os.Chtimes(filepath.Join(dir, e.Name()), old, old)
		}
	}
}

// TestSessionSurvivesKill: a process saving a session in a loop is
// SIGKILLed at random points; the session always loads as one complete
// version (every message of version n says n, and there are n+1 of
// them), and the next NewStore sweeps the temporary files the kills left.
func TestSessionSurvivesKill(t *testing.T) {
	dir := atomicfiletest.Dir(t)
	save := func(s *Store, n int) {
		sess := &Session{Key: "telegram:1"}
		for range n + 1 {
			sess.Messages = append(sess.Messages, Message{Role: "user", Content: strconv.Itoa(n) + strings.Repeat(".", 4000)})
		}
		if err := s.Save(sess); err != nil {
			panic(err)
		}
	}
	atomicfiletest.Child(t, func(i int) {
		s, err := NewStore(dir)
		if err != nil {
			panic(err)
		}
		save(s, i)
	})
	s, err := NewStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	save(s, 0)
	advanced := false
	atomicfiletest.Kill(t, dir, 15, func(t *testing.T) {
		ageTemps(t, dir)
		s, err := NewStore(dir)
		if err != nil {
			t.Fatal(err)
		}
		atomicfiletest.NoTemp(t, dir)
		sess, err := s.Load("telegram:1")
		if err != nil {
			t.Fatal(err)
		}
		n := len(sess.Messages) - 1
		want := strconv.Itoa(n) + strings.Repeat(".", 4000)
		for i, m := range sess.Messages {
			if m.Content != want {
				t.Fatalf("torn session: message %d of %d is %.20q", i, n+1, m.Content)
			}
		}
		if n > 0 {
			advanced = true
		}
	})
	if !advanced {
		t.Fatal("no child ever completed a save")
	}
}
