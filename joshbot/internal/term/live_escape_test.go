package term

import (
	"bytes"
	"testing"
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
