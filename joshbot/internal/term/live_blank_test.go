package term

import (
	"strings"
	"testing"
)

// The streamed answer starts after one blank line when tool-progress
// lines precede it, and only then: an answer with no tool call starts at
// once, and text already flowing gets no extra blank line.
func TestLiveBlankLineAfterTools(t *testing.T) {
	var b strings.Builder
	l := &Live{out: &b}
	l.Tool("read_file", "notes.md")
	l.Tool("web_search", "go generics")
	l.Delta("The ")
	l.Delta("answer.")
	l.Done()
	want := "  · read_file notes.md\n  · web_search go generics\n\nThe answer.\n"
	if b.String() != want {
		t.Fatalf("got %q, want %q", b.String(), want)
	}

	b.Reset()
	l = &Live{out: &b}
	l.Delta("No tools.")
	l.Done()
	if b.String() != "No tools.\n" {
		t.Fatalf("answer without tools: got %q", b.String())
	}
}
