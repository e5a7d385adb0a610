package term

import (
	"bytes"
	"testing"
	"time"
)

// TestLiveNeutralisesEscapes: a streamed answer split inside an OSC 52
// clipboard write and a clear-screen reaches the terminal inert.
func TestLiveNeutralisesEscapes(t *testing.T) {
	var b bytes.Buffer
	l := &Live{out: &b}
	for _, d := range []string{"copy: \x1b]52;c;", "ZXZpbA==\x07 and \x1b", "[2J done"} {
		l.Delta(d)
	}
	l.Done()
	if got := b.String(); got != "copy: ␛]52;c;ZXZpbA==␇ and ␛[2J done\n" {
		t.Fatalf("%q", got)
	}
}

// TestLiveWaitingStatus: while the model has not begun, a status line
// says for how long; the next event clears it in place, and text already
// shown is never overwritten by it.
func TestLiveWaitingStatus(t *testing.T) {
	var b bytes.Buffer
	l := &Live{out: &b}
	l.Waiting(2 * time.Second)
	l.Waiting(12 * time.Second)
	l.Delta("hi")
	l.Done()
	if got, want := b.String(), "\r\x1b[K⋯ waiting for the model (2s)\r\x1b[K⋯ waiting for the model (12s)\r\x1b[Khi\n"; got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	b.Reset()
	l = &Live{out: &b}
	l.Delta("partial")
	l.Waiting(4 * time.Second)
	l.Tool("read_file", "a.md")
	l.Done()
	if got, want := b.String(), "partial\n\r\x1b[K⋯ waiting for the model (4s)\r\x1b[K  · read_file a.md\n"; got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	var none *Live
	none.Waiting(time.Second)
}
