package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGrep(t *testing.T) {
	f := newFixture(t)
	f.write(t, "a.go", "package a\n\nfunc Alpha() {}\nfunc beta() {}\n")
	f.write(t, "sub/b.md", "# Alpha notes\r\nnothing\n")
	f.write(t, "sub/blob.bin", "Alpha\x00\x01")
	f.write(t, ".git/HEAD", "Alpha\n")
	f.link(t, "../a.go", "sub/alias.go")

	out := f.mustRun(t, "grep", args{"pattern": `Alpha`})
	want := "a.go:3: func Alpha() {}\nsub/alias.go:3: func Alpha() {}\nsub/b.md:1: # Alpha notes\n"
	if out != want {
		t.Fatalf("got\n%s\nwant\n%s", out, want)
	}
	if out := f.mustRun(t, "grep", args{"pattern": `^func \w+`, "include": "*.go", "path": "."}); out != "a.go:3: func Alpha() {}\na.go:4: func beta() {}\nsub/alias.go:3: func Alpha() {}\nsub/alias.go:4: func beta() {}\n" {
		t.Fatalf("anchored with include: %q", out)
	}
	if out := f.mustRun(t, "grep", args{"pattern": "alpha", "ignore_case": true, "path": "sub/b.md"}); out != "sub/b.md:1: # Alpha notes\n" {
		t.Fatalf("ignore_case on one file: %q", out)
	}
	if out := f.mustRun(t, "grep", args{"pattern": "zzz"}); !strings.HasPrefix(out, "no matches") {
		t.Fatalf("no match: %q", out)
	}
	if _, err := f.run(t, "grep", args{"pattern": "("}); err == nil || !strings.Contains(err.Error(), "not a valid Go regular expression") {
		t.Fatalf("bad regexp: %v", err)
	}
	if _, err := f.run(t, "grep", args{"pattern": "x", "include": "["}); err == nil || !strings.Contains(err.Error(), "include") {
		t.Fatalf("bad include: %v", err)
	}
}

// TestLineMatcher checks the whole-file fast path against a plain
// line-by-line scan on patterns chosen to trip it up.
func TestLineMatcher(t *testing.T) {
	data := []byte("abc\nxa\nb ab\n\nfoo bar\n  foo\nend")
	for _, pat := range []string{`a`, `^a`, `b$`, `a\s*b`, `a[^z]*b`, `^$`, `\Aa`, `d\z`, `^`, `x*`, `foo`, `^\s+foo`, `(?s)a.*b`, `\bab\b`} {
		m, err := newLineMatcher(pat, false)
		if err != nil {
			t.Fatal(err)
		}
		var got, want []string
		m.each(data, func(n int, line []byte) bool {
			got = append(got, fmt.Sprintf("%d:%s", n, line))
			return true
		})
		for i, line := range strings.Split(string(data), "\n") {
			if m.line.MatchString(line) {
				want = append(want, fmt.Sprintf("%d:%s", i+1, line))
			}
		}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%q: got %v, want %v", pat, got, want)
		}
	}
}

func TestGrepLimits(t *testing.T) {
	f := newFixture(t)
	f.write(t, "many.txt", strings.Repeat("hit\n", grepMaxMatches+50))
	f.write(t, "wide.txt", "hit"+strings.Repeat("x", 5000)+"\n")
	out := f.mustRun(t, "grep", args{"pattern": "hit"})
	if strings.Count(out, "many.txt:") != grepMaxMatches || !strings.Contains(out, "[truncated at 200 matches") {
		t.Fatalf("match cap: tail %q", out[len(out)-200:])
	}
	out = f.mustRun(t, "grep", args{"pattern": "hit", "path": "wide.txt"})
	if len(out) > grepMaxLineLen+100 || !strings.Contains(out, "line truncated") {
		t.Fatalf("line cap: %d bytes", len(out))
	}

	big := filepath.Join(f.ws, "huge.log")
	fh, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := fh.Truncate(grepMaxFileBytes + 1); err != nil {
		t.Fatal(err)
	}
	fh.Close()
	if out := f.mustRun(t, "grep", args{"pattern": "nothing", "path": "huge.log"}); !strings.Contains(out, "skipped 1 file(s)") {
		t.Fatalf("big file: %q", out)
	}
}

func TestGrepCancelled(t *testing.T) {
	f := newFixture(t)
	f.write(t, "a.txt", "x\n")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tool, _ := f.reg.Get("grep")
	if _, err := tool.Execute(ctx, json.RawMessage(`{"pattern":"x"}`)); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}

func BenchmarkGrep(b *testing.B) {
	ws := b.TempDir()
	for i := range 300 {
		dir := filepath.Join(ws, fmt.Sprintf("pkg%02d", i%20))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		var sb strings.Builder
		for j := range 200 {
			fmt.Fprintf(&sb, "// line %d of file %d: some ordinary source text to scan through\n", j, i)
			if j%97 == 0 && i%10 == 0 {
				sb.WriteString("func needleHandler(w http.ResponseWriter) {}\n")
			}
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.go", i)), []byte(sb.String()), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	reg := NewRegistry()
	if err := RegisterFilesystem(reg, ws); err != nil {
		b.Fatal(err)
	}
	args := json.RawMessage(`{"pattern":"func needle\\w+\\(","include":"*.go"}`)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		out, err := reg.Execute(ctx, "grep", args)
		if err != nil || strings.Count(out, "\n") != 90 {
			b.Fatalf("%v: %d lines", err, strings.Count(out, "\n"))
		}
	}
}
