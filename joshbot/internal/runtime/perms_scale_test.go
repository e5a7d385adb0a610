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

// Within the hour, a private directory holding no directories is not even
// listed: with thousands of sessions the listing alone was the largest
// part of a turn's start-up that grew with them. One holding a directory
// is still listed, and that directory's mode is still put right.
func TestTightenHomeDoesNotListAFreshDirectoryWithoutSubdirectories(t *testing.T) {
	home := t.TempDir()
	t.Setenv("JOSHBOT_HOME", home)
	sessions := filepath.Join(home, "sessions")
	if err := os.MkdirAll(sessions, 0o700); err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		if err := os.WriteFile(filepath.Join(sessions, fmt.Sprintf("cli_%d.jsonl", i)), []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	listed := map[string]int{}
	saved := readDirForModes
	readDirForModes = func(dir string) ([]os.DirEntry, error) {
		listed[filepath.Base(dir)]++
		return saved(dir)
	}
	t.Cleanup(func() { readDirForModes = saved })
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	tightenHome(home, quiet) // the first walk lists everything and stamps
	clear(listed)
	tightenHome(home, quiet)
	fi, err := os.Lstat(sessions)
	if err != nil {
		t.Fatal(err)
	}
	if holdsNoDirectories(fi) {
		if listed["sessions"] != 0 {
			t.Errorf("a fresh sessions/ with no subdirectories was listed %d times", listed["sessions"])
		}
	} else if listed["sessions"] != 1 {
		// A filesystem that does not count subdirectories: listed, as before.
		t.Errorf("sessions/ listed %d times on a filesystem without link counts, want 1", listed["sessions"])
	}

	sub := filepath.Join(sessions, "archive")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	clear(listed)
	tightenHome(home, quiet)
	if listed["sessions"] != 1 {
		t.Errorf("sessions/ holding a directory was listed %d times, want 1", listed["sessions"])
	}
	if fi, _ := os.Stat(sub); fi.Mode().Perm() != 0o700 {
		t.Errorf("a directory under a fresh sessions/ stayed %v", fi.Mode().Perm())
	}
}
