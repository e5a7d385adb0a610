package memory

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// A new session's turn creates no lock file of its own: its locks are
// bytes of the one shared file, which exists once.
func TestNewSessionCreatesNoLockFile(t *testing.T) {
	dir := t.TempDir()
	s := mustStore(t, dir)
	for _, key := range []string{"api:one", "api:two"} {
		unlock, err := s.Lock(context.Background(), key)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Stage(&Session{Key: key, Messages: []Message{msg("user", "hi")}}); err != nil {
			t.Fatal(err)
		}
		unlock()
	}
	entries, _ := os.ReadDir(dir)
	var locks []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".lock") {
			locks = append(locks, e.Name())
		}
	}
	if len(locks) != 1 || locks[0] != rangeLockName {
		t.Fatalf("lock files %v, want only %s", locks, rangeLockName)
	}
}

// Two Stores on one directory (two processes, as far as the lock can
// tell) exclude each other on one key and not on another.
func TestRangeLocksExcludeAcrossStores(t *testing.T) {
	dir := t.TempDir()
	a, b := mustStore(t, dir), mustStore(t, dir)
	unlock, err := a.Lock(context.Background(), "api:k")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := b.Lock(ctx, "api:k"); err == nil {
		t.Fatal("a second Store took a held turn lock")
	}
	other, err := b.Lock(context.Background(), "api:other")
	if err != nil {
		t.Fatal(err)
	}
	other()
	got := make(chan error, 1)
	go func() {
		u, err := b.Lock(context.Background(), "api:k")
		if err == nil {
			u()
		}
		got <- err
	}()
	time.Sleep(20 * time.Millisecond)
	unlock()
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the lock was not handed over after unlock")
	}
	// The file lock, separate from the turn lock: a Store holding the
	// turn lock can still save.
	u, err := a.Lock(context.Background(), "api:k")
	if err != nil {
		t.Fatal(err)
	}
	defer u()
	if err := a.Save(&Session{Key: "api:k", Messages: []Message{msg("user", "x")}}); err != nil {
		t.Fatal(err)
	}
}
