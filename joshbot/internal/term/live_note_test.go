package term

import (
	"strings"
	"testing"
)

// A tool's note is a line of its own, under the tool's line and marked
// apart from it, and it never splits the answer's text mid-line.
func TestLiveNote(t *testing.T) {
	var b strings.Builder
	l := &Live{out: &b}
	l.Tool("web_search", "go generics")
	l.Note("web_search", "falling back to duckduckgo after exa failed")
	l.Delta("Half")
	l.Note("web_fetch", "example.com answered 200 OK\x1b[2J")
	l.Note("web_fetch", "")
	l.Delta("done\n")
	want := "  · web_search go generics\n" +
		"    ↳ web_search: falling back to duckduckgo after exa failed\n" +
		"\nHalf\n" +
		"    ↳ web_fetch: \"example.com answered 200 OK\\x1b[2J\"\n" +
		"\ndone\n"
	if b.String() != want {
		t.Fatalf("got %q, want %q", b.String(), want)
	}
	var none *Live
	none.Note("x", "y")
}
