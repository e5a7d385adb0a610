package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestReadFile(t *testing.T) {
	f := newFixture(t)
	f.write(t, "five.txt", numbered(5))
	out := f.mustRun(t, "read_file", args{"path": "five.txt"})
	want := "     1\tline 1\n     2\tline 2\n     3\tline 3\n     4\tline 4\n     5\tline 5\n"
	if out != want {
		t.Fatalf("got %q\nwant %q", out, want)
	}

	out = f.mustRun(t, "read_file", args{"path": "five.txt", "offset": 2, "limit": 2})
	if !strings.HasPrefix(out, "     2\tline 2\n     3\tline 3\n[showing lines 2-3 of 5") || !strings.Contains(out, "offset=4") {
		t.Fatalf("window: %q", out)
	}
	out = f.mustRun(t, "read_file", args{"path": "five.txt", "offset": 5})
	if !strings.Contains(out, "line 5") || strings.Contains(out, "offset=") {
		t.Fatalf("last line window should not offer more: %q", out)
	}
	if _, err := f.run(t, "read_file", args{"path": "five.txt", "offset": 6}); err == nil || !strings.Contains(err.Error(), "has 5 lines") {
		t.Fatalf("offset past end: %v", err)
	}
	if _, err := f.run(t, "read_file", args{"path": "five.txt", "offset": 0}); err == nil {
		t.Fatal("offset 0 accepted")
	}

	f.write(t, "nonl.txt", "a\nb")
	if out := f.mustRun(t, "read_file", args{"path": "nonl.txt"}); out != "     1\ta\n     2\tb\n" {
		t.Fatalf("no final newline: %q", out)
	}
	f.write(t, "crlf.txt", "a\r\nb\r\n")
	if out := f.mustRun(t, "read_file", args{"path": "crlf.txt"}); out != "     1\ta\n     2\tb\n" {
		t.Fatalf("crlf: %q", out)
	}
	f.write(t, "empty.txt", "")
	if out := f.mustRun(t, "read_file", args{"path": "empty.txt"}); !strings.Contains(out, "empty") {
		t.Fatalf("empty file: %q", out)
	}
}

func TestReadFileTruncation(t *testing.T) {
	f := newFixture(t)
	f.write(t, "big.txt", numbered(2500))
	out := f.mustRun(t, "read_file", args{"path": "big.txt"})
	if strings.Count(out, "\n") != readMaxLines+1 || !strings.Contains(out, "[showing lines 1-2000 of 2500. To read more, call read_file with offset=2001]") {
		t.Fatalf("line cap marker missing; tail: %q", out[len(out)-200:])
	}
	out = f.mustRun(t, "read_file", args{"path": "big.txt", "offset": 2001, "limit": 2000})
	if !strings.HasPrefix(out, "  2001\tline 2001\n") || !strings.Contains(out, "  2500\tline 2500\n") || strings.Contains(out, "offset=") {
		t.Fatalf("second window: %q", out[:100])
	}

	// Byte cap: 200 lines of 1900 characters is well over 256 KiB.
	long := strings.Repeat("é", 950) // 1900 bytes
	f.write(t, "wide.txt", strings.Repeat(long+"\n", 200))
	out = f.mustRun(t, "read_file", args{"path": "wide.txt"})
	if len(out) > readMaxBytes+200 || !strings.Contains(out, "output capped at 256 KiB") || !strings.Contains(out, "offset=") {
		t.Fatalf("byte cap: %d bytes, tail %q", len(out), out[len(out)-200:])
	}

	// One enormous line is cut, on a rune boundary, and the file still reads.
	f.write(t, "minified.js", strings.Repeat("ü", 5000)+"\nsecond\n")
	out = f.mustRun(t, "read_file", args{"path": "minified.js"})
	if !strings.Contains(out, lineTruncMarker) || !strings.Contains(out, "     2\tsecond") || !strings.Contains(out, strings.Repeat("ü", readMaxLineLen/2)) {
		t.Fatalf("long line: %q", out[len(out)-100:])
	}
	if strings.Contains(out, "\uFFFD") {
		t.Fatal("cut split a rune")
	}
}

func TestReadFileRefusals(t *testing.T) {
	f := newFixture(t)
	f.write(t, "img.bin", "PNG\x00\x01\x02")
	if _, err := f.run(t, "read_file", args{"path": "img.bin"}); err == nil || !strings.Contains(err.Error(), "binary") {
		t.Fatalf("binary: %v", err)
	}
	if err := os.Mkdir(filepath.Join(f.ws, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := f.run(t, "read_file", args{"path": "d"}); err == nil || !strings.Contains(err.Error(), "list_dir") {
		t.Fatalf("directory: %v", err)
	}
	if _, err := f.run(t, "read_file", args{"path": "nope.txt"}); err == nil || !strings.Contains(err.Error(), `"nope.txt" does not exist`) {
		t.Fatalf("missing: %v", err)
	}
	if _, err := f.run(t, "read_file", args{"path": "nope.txt"}); strings.Contains(err.Error(), f.ws) {
		t.Fatalf("error exposes the host path: %v", err)
	}
}
