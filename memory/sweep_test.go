package memory

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// Temporary files a killed process left behind are removed when a store
// opens, once they are old enough that no live writer can own them.
func TestNewStoreSweepsStaleTempFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sessions")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-2 * time.Minute)
	files := map[string]time.Time{
		".cli_default.jsonl.123456.tmp":    old,        // stale: swept
		".cli_default.meta.json.98765.tmp": old,        // stale: swept
		".cli_default.jsonl.555.tmp":       time.Now(), // a writer may own it
		"cli_default.jsonl":                old,        // the session itself
		".cli_default.lock":                old,        // lock files stay
		"notes.tmp":                        old,        // not the store's pattern
	}
	for name, mt := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	// A directory with a temporary file's name is not the store's.
	sub := filepath.Join(dir, ".cli_other.jsonl.4242.tmp")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(sub, old, old); err != nil {
		t.Fatal(err)
	}
	if _, err := NewStore(dir); err != nil {
		t.Fatal(err)
	}
	got := dirNames(t, dir)
	want := []string{".cli_default.jsonl.555.tmp", ".cli_other.jsonl.4242.tmp", "cli_default.jsonl", "notes.tmp"}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("left %v, want %v", got, want)
	}
}

// OpenLongTerm sweeps the workspace's stale temporary files the same way.
func TestOpenLongTermSweepsStaleTempFiles(t *testing.T) {
	ws := t.TempDir()
	stale := filepath.Join(ws, ".MEMORY.md.4242.tmp")
	if err := os.WriteFile(stale, []byte("half"), 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(stale, old, old)
	if _, err := OpenLongTerm(ws, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Fatalf("stale temp file still there: %v", err)
	}
}

// countListings counts the directory listings sweeps make during the test.
func countListings(t *testing.T) *int {
	t.Helper()
	n := new(int)
	saved := readDirNames
	readDirNames = func(dir string) ([]string, error) {
		*n++
		return saved(dir)
	}
	t.Cleanup(func() { readDirNames = saved })
	return n
}

// A store opening on a sessions directory unchanged since its last sweep
// does not list it again (a directory of thousands of sessions costs
// every start milliseconds), and one a killed writer changed since is
// swept.
func TestNewStoreListsOnlyAChangedDirectory(t *testing.T) {
	listings := countListings(t)
	dir := filepath.Join(t.TempDir(), "sessions")
	if _, err := NewStore(dir); err != nil {
		t.Fatal(err)
	}
	s, err := NewStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Appending to an existing session leaves the directory as it was.
	if err := s.Save(&Session{Key: "cli:default", Messages: []Message{{Role: "user", Content: "hi"}}}); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(dir, sweepMarker)
	old := time.Now().Add(-time.Hour)
	// The save above made a file: mark the sweep after it, as the next
	// open would.
	markSwept(marker)
	*listings = 0
	if err := s.Save(&Session{Key: "cli:default", Messages: []Message{{Role: "user", Content: "hi"}, {Role: "assistant", Content: "hello"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := NewStore(dir); err != nil {
		t.Fatal(err)
	}
	if *listings != 0 {
		t.Fatalf("an unchanged directory was listed %d times", *listings)
	}

	// A killed writer's file changes the directory: the next open sweeps.
	stale := filepath.Join(dir, ".cli_default.jsonl.777.tmp")
	if err := os.WriteFile(stale, []byte("half"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(stale, old, old)
	// The marker is no later than the directory, whatever the clock's
	// granularity.
	os.Chtimes(marker, old, old)
	if _, err := NewStore(dir); err != nil {
		t.Fatal(err)
	}
	if *listings != 1 {
		t.Fatalf("a changed directory was listed %d times, want 1", *listings)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Fatalf("stale temp file still there: %v", err)
	}
}

// The workspace is listed for leftovers only when it changed, and the
// markers are kept out of it.
func TestOpenLongTermMarksOutsideTheWorkspace(t *testing.T) {
	listings := countListings(t)
	ws := t.TempDir()
	if _, err := OpenLongTerm(ws, nil); err != nil {
		t.Fatal(err)
	}
	if *listings != 2 {
		t.Fatalf("first open listed %d directories, want the workspace and its memory directory", *listings)
	}
	*listings = 0
	if _, err := OpenLongTerm(ws, nil); err != nil {
		t.Fatal(err)
	}
	if *listings != 0 {
		t.Fatalf("reopening unchanged directories listed %d", *listings)
	}
	entries, err := os.ReadDir(ws)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), sweepMarker) {
			t.Fatalf("a sweep marker %q is in the workspace", e.Name())
		}
	}
}
