package tools

import (
	"fmt"
	"strings"
	"testing"
)

func TestGlobMatch(t *testing.T) {
	cases := []struct {
		pat, name string
		want      bool
	}{
		{"*.go", "a.go", true},
		{"*.go", "d/a.go", false},
		{"**/*.go", "a.go", true},
		{"**/*.go", "d/e/a.go", true},
		{"d/**", "d", true},
		{"d/**", "d/e/f", true},
		{"d/**/f", "d/f", true},
		{"d/**/f", "d/x/y/f", true},
		{"d/**/f", "d/x/y/g", false},
		{"**/x/**/y", "a/x/b/c/y", true},
		{"**/x/**/y", "a/x/b/c/z", false},
		{"a/*/c", "a/b/c", true},
		{"a/*/c", "a/b/b/c", false},
		{"a?c", "abc", true},
		{"[ab]*", "b1", true},
		{"**", "anything/at/all", true},
		{"./src/*.go", "src/m.go", true},
		{"src//*.go", "src/m.go", true},
	}
	for _, c := range cases {
		g, err := parseGlob(c.pat)
		if err != nil {
			t.Fatalf("parseGlob(%q): %v", c.pat, err)
		}
		if got := g.match(strings.Split(c.name, "/")); got != c.want {
			t.Errorf("%q vs %q: got %v, want %v", c.pat, c.name, got, c.want)
		}
	}
	for _, c := range []struct {
		pat, dir string
		want     bool
	}{
		{"src/*.go", "src", true},
		{"src/*.go", "docs", false},
		{"src/*.go", "src/sub", false},
		{"**/*.go", "any/where", true},
		{"a/**/z", "a/b/c", true},
		{"a/**/z", "b", false},
	} {
		g, _ := parseGlob(c.pat)
		if got := g.couldMatchBelow(strings.Split(c.dir, "/")); got != c.want {
			t.Errorf("couldMatchBelow(%q, %q) = %v, want %v", c.pat, c.dir, got, c.want)
		}
	}
	for _, bad := range []string{"", "/abs/*", "../*", "a/../b", "[", ".", "a/[b"} {
		if _, err := parseGlob(bad); err == nil {
			t.Errorf("parseGlob(%q) accepted", bad)
		}
	}
}

func TestGlob(t *testing.T) {
	f := newFixture(t)
	for _, p := range []string{"README.md", "src/main.go", "src/util/u.go", "src/util/u_test.go", "docs/a.md", ".git/config.go", "src/.git/x.go"} {
		f.write(t, p, "x")
	}
	f.link(t, "src", "srclink")

	out := f.mustRun(t, "glob", args{"pattern": "**/*.go"})
	if out != "src/main.go\nsrc/util/u.go\nsrc/util/u_test.go\n" {
		t.Fatalf("**/*.go: %q", out)
	}
	if out := f.mustRun(t, "glob", args{"pattern": "*.go", "path": "src/util"}); out != "src/util/u.go\nsrc/util/u_test.go\n" {
		t.Fatalf("with path: %q", out)
	}
	if out := f.mustRun(t, "glob", args{"pattern": "*"}); out != "README.md\ndocs/\nsrc/\nsrclink/\n" {
		t.Fatalf("top level: %q", out)
	}
	if out := f.mustRun(t, "glob", args{"pattern": "**/*.rs"}); !strings.HasPrefix(out, "no paths match") {
		t.Fatalf("no match: %q", out)
	}
	if _, err := f.run(t, "glob", args{"pattern": "*", "path": "README.md"}); err == nil {
		t.Fatal("file as path accepted")
	}
	if _, err := f.run(t, "glob", args{"pattern": "[x"}); err == nil || !strings.Contains(err.Error(), "malformed") {
		t.Fatalf("bad pattern: %v", err)
	}
}

func TestGlobCap(t *testing.T) {
	f := newFixture(t)
	for i := range globMaxResults + 10 {
		f.write(t, fmt.Sprintf("d%d/f%04d.txt", i%7, i), "")
	}
	out := f.mustRun(t, "glob", args{"pattern": "**/*.txt"})
	if strings.Count(out, "\n") != globMaxResults+1 || !strings.Contains(out, fmt.Sprintf("[truncated: %d of %d matches", globMaxResults, globMaxResults+10)) {
		t.Fatalf("cap: tail %q", out[len(out)-200:])
	}
}
