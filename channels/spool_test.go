package channels_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/joshbot/joshbot/channels"
)

func TestSweepSpoolRemovesOnlyOldSpoolFiles(t *testing.T) {
	dir := t.TempDir()
	old, err := channels.SaveToSpool(dir, strings.NewReader("old picture"), "image/png", "a.png")
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := channels.SaveToSpool(dir, strings.NewReader("new picture"), "image/png", "b.png")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	long := now.Add(-48 * time.Hour)
	stale := filepath.Join(dir, ".incoming-123")
	notOurs := filepath.Join(dir, "notes.txt")
	for _, p := range []string{stale, notOurs} {
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{old.Path, stale, notOurs} {
		if err := os.Chtimes(p, long, long); err != nil {
			t.Fatal(err)
		}
	}
	n, err := channels.SweepSpool(dir, 24*time.Hour, now)
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("removed %d files, want 2 (the old attachment and the stale upload)", n)
	}
	var left []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		left = append(left, e.Name())
	}
	want := []string{filepath.Base(fresh.Path), "notes.txt"}
	slices.Sort(want)
	if !slices.Equal(left, want) {
		t.Errorf("left %v, want %v", left, want)
	}
	if _, err := channels.ResolveSpoolID(dir, fresh.ID()); err != nil {
		t.Errorf("the fresh attachment no longer resolves: %v", err)
	}

	// The same bytes arriving again make the file fresh again.
	again, err := channels.SaveToSpool(dir, strings.NewReader("old picture"), "image/png", "a.png")
	if err != nil {
		t.Fatal(err)
	}
	if n, err := channels.SweepSpool(dir, 24*time.Hour, now.Add(time.Hour)); err != nil || n != 0 {
		t.Errorf("sweep after a re-upload removed %d (err %v), want 0", n, err)
	}
	if _, err := channels.ResolveSpoolID(dir, again.ID()); err != nil {
		t.Errorf("a re-sent attachment was swept: %v", err)
	}
}

func TestSweepSpoolMissingDirectory(t *testing.T) {
	n, err := channels.SweepSpool(filepath.Join(t.TempDir(), "never"), time.Hour, time.Now())
	if err != nil || n != 0 {
		t.Fatalf("SweepSpool on a missing directory = %d, %v; want 0, nil", n, err)
	}
}
