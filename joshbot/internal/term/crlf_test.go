package term

import (
	"strings"
	"sync/atomic"
	"testing"
)

func TestCRLFWriterOnlyWhileRaw(t *testing.T) {
	var b strings.Builder
	var raw atomic.Bool
	w := CRLFWriter{W: &b, Raw: &raw}
	w.Write([]byte("a\nb\n"))
	raw.Store(true)
	n, err := w.Write([]byte("c\nd\n"))
	raw.Store(false)
	if err != nil || n != 4 {
		t.Fatalf("n=%d err=%v", n, err)
	}
	w.Write([]byte("e\n"))
	CRLFWriter{W: &b}.Write([]byte("f\n")) // no flag: never raw
	if b.String() != "a\nb\nc\r\nd\r\ne\nf\n" {
		t.Fatalf("%q", b.String())
	}
}
