package runtime

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestTightenHomeDoesNotStatEveryFileOnEveryStart: start-up cost must not
// grow with the number of stored sessions. Once a walk has found
// sessions/ private, later starts look at the directories and skip the
// files of a directory that has not changed since; a file added (copied
// in, restored) or a directory loosened (chmod -R) brings its files back
// into the check.
func TestTightenHomeDoesNotStatEveryFileOnEveryStart(t *testing.T) {
	home := t.TempDir()
	t.Setenv("JOSHBOT_HOME", home)
	sessions := filepath.Join(home, "sessions")
	if err := os.MkdirAll(sessions, 0o700); err != nil {
		t.Fatal(err)
	}
	const n = 300
	for i := range n {
		if err := os.WriteFile(filepath.Join(sessions, fmt.Sprintf("cli_%d.jsonl", i)), []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	// Directory times are compared with a little slack for coarse
	// clocks; age the tree so this start is not "just after" the last.
	age := func() {
		// The directory last changed before the walk that stamped it.
		for p, ago := range map[string]time.Duration{sessions: 2 * time.Minute, filepath.Join(sessions, modesStamp): time.Minute} {
			if _, err := os.Lstat(p); err == nil {
				old := time.Now().Add(-ago)
				if err := os.Chtimes(p, old, old); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if got := tightenHome(home, quiet); got < n {
		t.Fatalf("first start looked at %d files, want all %d", got, n)
	}
	age()
	if got := tightenHome(home, quiet); got >= n/10 {
		t.Fatalf("a start with nothing changed looked at %d files of %d, want only the directories", got, n)
	}

	// A file copied in loosely: its directory changed, so it is fixed.
	age()
	loose := filepath.Join(sessions, "tg_copied.jsonl")
	if err := os.WriteFile(loose, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(loose, 0o644); err != nil {
		t.Fatal(err)
	}
	tightenHome(home, quiet)
	if fi, _ := os.Stat(loose); fi.Mode().Perm() != 0o600 {
		t.Errorf("a file copied in since the last start stayed %v", fi.Mode().Perm())
	}

	// chmod -R go+r: the directory's own mode gives it away, so every
	// file in it is checked again.
	age()
	victim := filepath.Join(sessions, "cli_7.jsonl")
	for p, m := range map[string]os.FileMode{sessions: 0o755, victim: 0o644} {
		if err := os.Chmod(p, m); err != nil {
			t.Fatal(err)
		}
	}
	tightenHome(home, quiet)
	for p, want := range map[string]os.FileMode{sessions: 0o700, victim: 0o600} {
		if fi, _ := os.Stat(p); fi.Mode().Perm() != want {
			t.Errorf("after chmod -R, %s is %v, want %v", filepath.Base(p), fi.Mode().Perm(), want)
		}
	}
}
