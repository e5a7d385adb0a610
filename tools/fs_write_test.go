package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteFile(t *testing.T) {
	f := newFixture(t)
	out := f.mustRun(t, "write_file", args{"path": "deep/er/note.md", "content": "héllo\n"})
	if out != "created deep/er/note.md (7 bytes written)" {
		t.Fatalf("report: %q", out)
	}
	if f.read(t, "deep/er/note.md") != "héllo\n" {
		t.Fatal("content not written")
	}
	fi, err := os.Stat(filepath.Join(f.ws, "deep/er/note.md"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm()&^0o644 != 0 {
		t.Errorf("new file mode %v, want at most 0644", fi.Mode().Perm())
	}

	// Overwrite keeps an existing file's permission bits.
	p := filepath.Join(f.ws, "run.sh")
	if err := os.WriteFile(p, []byte("old"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o750); err != nil {
		t.Fatal(err)
	}
	if out := f.mustRun(t, "write_file", args{"path": "run.sh", "content": ""}); !strings.HasPrefix(out, "overwrote run.sh (0 bytes") {
		t.Fatalf("overwrite report: %q", out)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o750 {
		t.Errorf("overwrite changed mode to %v", fi.Mode().Perm())
	}

	if _, err := f.run(t, "write_file", args{"path": "deep", "content": "x"}); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Fatalf("writing over a directory: %v", err)
	}
	if _, err := f.run(t, "write_file", args{"path": "run.sh/x", "content": "x"}); err == nil {
		t.Fatal("writing below a file succeeded")
	}

	// No temporary files are left behind.
	entries, err := os.ReadDir(f.ws)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".joshbot-write-") {
			t.Fatalf("temporary file left: %s", e.Name())
		}
	}
}
