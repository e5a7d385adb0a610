package atomicfile_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/joshbot/joshbot/memory/atomicfile"
	"github.com/joshbot/joshbot/memory/atomicfile/atomicfiletest"
)

// version is the content of version i: a header and a body long enough
// that a write takes several system calls, so a torn file would show.
func version(i int) []byte {
	return fmt.Appendf(nil, "%d\n%s", i, bytes.Repeat([]byte{byte('a' + i%26)}, 256<<10))
}

// checkVersion fails unless b is one complete version.
func checkVersion(t *testing.T, b []byte) int {
	t.Helper()
	head, body, ok := bytes.Cut(b, []byte("\n"))
	i, err := strconv.Atoi(string(head))
	if !ok || err != nil || !bytes.Equal(b, version(i)) {
		t.Fatalf("torn file: %d bytes, header %q", len(b), head[:min(len(head), 20)])
	}
	_ = body
	return i
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := atomicfile.WriteFile(p, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.WriteFile(p, []byte("two"), 0o640); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	st, _ := os.Stat(p)
	if string(b) != "two" || st.Mode().Perm() != 0o640 {
		t.Fatalf("got %q %v", b, st.Mode())
	}
	boom := errors.New("boom")
	if err := atomicfile.Write(p, 0o600, func(w io.Writer) error { w.Write([]byte("partial")); return boom }); !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "two" {
		t.Fatalf("a failed write changed the file: %q", b)
	}
	atomicfiletest.NoTemp(t, dir)
	if err := atomicfile.WriteFile(filepath.Join(dir, "missing", "f"), nil, 0o600); err == nil {
		t.Fatal("write into a missing directory succeeded")
	}
}

func TestIsTempAndSweep(t *testing.T) {
	for name, want := range map[string]bool{
		".f.123.tmp": true, ".sessions.json.9.tmp": true, "f.123.tmp": false, ".f.tmp": false,
		"..1.tmp": false, ".f.12a.tmp": false, ".f.123": false, ".f..tmp": false,
	} {
		if atomicfile.IsTemp(name) != want {
			t.Errorf("IsTemp(%q) = %v", name, !want)
		}
	}
	dir := t.TempDir()
	for _, n := range []string{".a.1.tmp", ".b.2.tmp", "keep", ".keep.x.tmp"} {
		os.WriteFile(filepath.Join(dir, n), nil, 0o600)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(filepath.Join(dir, ".a.1.tmp"), old, old)
	if n, err := atomicfile.Sweep(dir, time.Minute); n != 1 || err != nil {
		t.Fatalf("Sweep(1m) = %d, %v; want only the old temporary", n, err)
	}
	if n, err := atomicfile.Sweep(dir, 0); n != 1 || err != nil {
		t.Fatalf("Sweep(0) = %d, %v", n, err)
	}
	for _, n := range []string{"keep", ".keep.x.tmp"} {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			t.Fatalf("%s swept: %v", n, err)
		}
	}
	if n, err := atomicfile.Sweep(filepath.Join(dir, "nope"), 0); n != 0 || err != nil {
		t.Fatalf("missing dir: %d, %v", n, err)
	}
}

// TestWriteSurvivesKill: a writer SIGKILLed at random points leaves one
// complete version, never a torn one, and Sweep leaves no temporary.
func TestWriteSurvivesKill(t *testing.T) {
	dir := atomicfiletest.Dir(t)
	p := filepath.Join(dir, "state")
	atomicfiletest.Child(t, func(i int) {
		if err := atomicfile.WriteFile(p, version(i), 0o600); err != nil {
			panic(err)
		}
	})
	if err := atomicfile.WriteFile(p, version(0), 0o600); err != nil {
		t.Fatal(err)
	}
	advanced := false
	atomicfiletest.Kill(t, dir, 20, func(t *testing.T) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		v := checkVersion(t, b)
		if v > 0 {
			advanced = true
		}
		if _, err := atomicfile.Sweep(dir, 0); err != nil {
			t.Fatal(err)
		}
		atomicfiletest.NoTemp(t, dir)
	})
	if !advanced {
		t.Fatal("no child ever completed a write: the kills landed too early to test anything")
	}
}
