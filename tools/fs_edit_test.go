package tools

import (
	"strings"
	"testing"
)

func TestEditFile(t *testing.T) {
	f := newFixture(t)
	f.write(t, "a.go", "func a() {\n\treturn 1\n}\n\nfunc b() {\n\treturn 1\n}\n")

	_, err := f.run(t, "edit_file", args{"path": "a.go", "old_text": "return 1", "new_text": "return 2"})
	if err == nil || !strings.Contains(err.Error(), "occurs 2 times") || !strings.Contains(err.Error(), "replace_all") {
		t.Fatalf("ambiguous edit: %v", err)
	}
	out := f.mustRun(t, "edit_file", args{"path": "a.go", "old_text": "func b() {\n\treturn 1", "new_text": "func b() {\n\treturn 2"})
	if !strings.Contains(out, "replaced 1 occurrence") {
		t.Fatalf("report: %q", out)
	}
	if got := f.read(t, "a.go"); got != "func a() {\n\treturn 1\n}\n\nfunc b() {\n\treturn 2\n}\n" {
		t.Fatalf("after single edit: %q", got)
	}

	out = f.mustRun(t, "edit_file", args{"path": "a.go", "old_text": "return", "new_text": "yield", "replace_all": true})
	if !strings.Contains(out, "replaced 2 occurrences") || strings.Contains(f.read(t, "a.go"), "return") {
		t.Fatalf("replace_all: %q / %q", out, f.read(t, "a.go"))
	}

	f.mustRun(t, "edit_file", args{"path": "a.go", "old_text": "\n\nfunc b", "new_text": ""})
	if strings.Contains(f.read(t, "a.go"), "func b") {
		t.Fatal("deletion with empty new_text failed")
	}

	for _, c := range []struct {
		a    args
		want string
	}{
		{args{"path": "a.go", "old_text": "missing", "new_text": "x"}, "0 occurrences"},
		{args{"path": "a.go", "old_text": "", "new_text": "x"}, "old_text is empty"},
		{args{"path": "a.go", "old_text": "yield", "new_text": "yield"}, "identical"},
		{args{"path": "nope.go", "old_text": "a", "new_text": "b"}, "does not exist"},
		{args{"path": ".", "old_text": "a", "new_text": "b"}, "directory"},
	} {
		if _, err := f.run(t, "edit_file", c.a); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("edit %v: got %v, want %q", c.a, err, c.want)
		}
	}
	f.write(t, "bin", "a\x00b")
	if _, err := f.run(t, "edit_file", args{"path": "bin", "old_text": "a", "new_text": "c"}); err == nil || !strings.Contains(err.Error(), "binary") {
		t.Fatalf("binary edit: %v", err)
	}
}
