package memory

import (
	"os"
	"path/filepath"
	"slices"
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
