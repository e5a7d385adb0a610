package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestListDir(t *testing.T) {
	f := newFixture(t)
	f.write(t, "b.txt", "12345")
	f.write(t, "a/inner.txt", "x")
	f.write(t, ".hidden", "")
	f.link(t, "b.txt", "c-link")
	f.link(t, f.outside, "out")

	out := f.mustRun(t, "list_dir", args{})
	want := ". (5 entries)\n.hidden  0 bytes\na/\nb.txt  5 bytes\nc-link@ -> b.txt\nout@ -> (outside the workspace or missing; not accessible)\n"
	if out != want {
		t.Fatalf("got\n%s\nwant\n%s", out, want)
	}
	if out := f.mustRun(t, "list_dir", args{"path": "a"}); out != "a/ (1 entry)\ninner.txt  1 bytes\n" {
		t.Fatalf("subdir: %q", out)
	}
	if _, err := f.run(t, "list_dir", args{"path": "b.txt"}); err == nil || !strings.Contains(err.Error(), "read_file") {
		t.Fatalf("file: %v", err)
	}
	f.mustRun(t, "write_file", args{"path": "e/.keep", "content": ""})
	if err := os.Remove(filepath.Join(f.ws, "e/.keep")); err != nil {
		t.Fatal(err)
	}
	if out := f.mustRun(t, "list_dir", args{"path": "e"}); !strings.Contains(out, "(empty directory)") {
		t.Fatalf("empty dir: %q", out)
	}
}

func TestListDirCap(t *testing.T) {
	f := newFixture(t)
	for i := range listMaxEntries + 5 {
		f.write(t, fmt.Sprintf("many/f%04d", i), "")
	}
	out := f.mustRun(t, "list_dir", args{"path": "many"})
	if !strings.Contains(out, fmt.Sprintf("[truncated: %d of %d entries", listMaxEntries, listMaxEntries+5)) || strings.Contains(out, "f1004") {
		t.Fatalf("cap: tail %q", out[len(out)-150:])
	}
}
