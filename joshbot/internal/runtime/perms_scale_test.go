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
// sessions/ private, starts within the hour re-check the directories
// only, even though joshbot's own saves change them on every turn; a
// loosened directory (chmod -R) brings its files back at once, and a
// file copied in loosely is found once the hour is over.
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
	stamp := filepath.Join(sessions, modesStamp)
	if got := tightenHome(home, quiet); got < n {
		t.Fatalf("first start looked at %d files, want all %d", got, n)
	}
	// A turn saves a session: the directory changes, as on every turn.
	if err := os.WriteFile(filepath.Join(sessions, "cli_new.jsonl"), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := tightenHome(home, quiet); got >= n/10 {
		t.Fatalf("a start within the hour looked at %d files of %d, want only the directories", got, n)
	}

	// A file copied in loosely: found once the last full walk is an hour old.
	loose := filepath.Join(sessions, "tg_copied.jsonl")
	if err := os.WriteFile(loose, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(loose, 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-fileCheckEvery - time.Minute)
	if err := os.Chtimes(stamp, old, old); err != nil {
		t.Fatal(err)
	}
	if got := tightenHome(home, quiet); got < n {
		t.Fatalf("a start an hour after the last full walk looked at %d files, want all", got)
	}
	if fi, _ := os.Stat(loose); fi.Mode().Perm() != 0o600 {
		t.Errorf("a file copied in stayed %v after the hour", fi.Mode().Perm())
	}
	if got := tightenHome(home, quiet); got >= n/10 {
		t.Fatalf("the walk after the hour did not renew the stamp: next start looked at %d files", got)
	}

	// chmod -R go+r: the directory's own mode gives it away, so every
	// file in it is checked again at once.
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
