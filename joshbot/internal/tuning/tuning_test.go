package tuning

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestRaiseCapCooldownAndRelax(t *testing.T) {
	dir := t.TempDir()
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	opts := &Options{MaxBump: 10 * time.Second, Step: 4 * time.Second, Cooldown: time.Hour, Timeouts: 2, Successes: 3, Now: c.now}
	tu, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	rec := func(outcome string, n int) {
		for range n {
			if err := tu.Record("web_search", outcome); err != nil {
				t.Fatal(err)
			}
		}
	}
	steps := []struct {
		name    string
		advance time.Duration
		outcome string
		n       int
		want    time.Duration
	}{
		{"one timeout is not enough", 0, Timeout, 1, 0},
		{"the second raises a step", 0, Timeout, 1, 4 * time.Second},
		{"cooldown holds further raises", time.Minute, Timeout, 5, 4 * time.Second},
		{"after the cooldown it raises again", time.Hour, Timeout, 1, 8 * time.Second},
		{"the cap holds", 2 * time.Hour, Timeout, 2, 10 * time.Second},
		{"at the cap nothing changes", 0, Timeout, 5, 10 * time.Second},
		{"a success run inside the cooldown waits", 0, Success, 3, 10 * time.Second},
		{"a success run after it steps back", 2 * time.Hour, Success, 3, 6 * time.Second},
	}
	for _, s := range steps {
		c.t = c.t.Add(s.advance)
		rec(s.outcome, s.n)
		if got := tu.Bump("web_search"); got != s.want {
			t.Fatalf("%s: bump %v, want %v", s.name, got, s.want)
		}
	}
	// The overlay is what the next start merges.
	again, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	if again.Bump("web_search") != 6*time.Second || again.Bump("web_fetch") != 0 {
		t.Fatalf("reopened bump %v", again.Bump("web_search"))
	}
	// A smaller cap holds an old overlay down.
	small, _ := Open(dir, &Options{MaxBump: 5 * time.Second, Now: c.now})
	if small.Bump("web_search") != 5*time.Second {
		t.Fatalf("capped bump %v", small.Bump("web_search"))
	}
	counts, err := CountEvents(dir)
	if err != nil {
		t.Fatal(err)
	}
	if counts["web_search"] != [2]int{1 + 1 + 5 + 1 + 2 + 5, 6} {
		t.Fatalf("counts %v", counts)
	}
	fi, _ := os.Stat(filepath.Join(dir, EventsFile))
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("events mode %v", fi.Mode().Perm())
	}
	if err := Reset(dir); err != nil {
		t.Fatal(err)
	}
	fresh, _ := Open(dir, opts)
	if fresh.Bump("web_search") != 0 {
		t.Fatal("reset kept the overlay")
	}
}

func TestCorruptOverlayNamesTheFix(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, OverlayFile), []byte("{"), 0o600)
	if _, err := Open(dir, nil); err == nil {
		t.Fatal("no error")
	}
	tu, _ := Open(t.TempDir(), nil)
	if err := tu.Record("x", "maybe"); err == nil {
		t.Fatal("bad outcome accepted")
	}
}
