package output

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"text/tabwriter"
)

// tableCases are the shapes the package's tables take and the edges of
// column blocks: ragged lines, lines without tabs, empty cells, wide
// runes, trailing tabs, text after the last newline, form feeds.
var tableCases = []string{
	"", "\n", "a", "a\n", "a\tb\n", "a\tb", "a\t", "\t", "\t\n", "\t\t\n",
	"NAME\tPROVIDER\tKEY\nopenai\topenai\tset\nlocal\tollama\t-\n",
	"Workspace:\t/w\nMEMORY.md:\t12 KiB (limit 4 KiB)\nSession memories:\t3 files in /m\n",
	"a\tbb\tccc\ndddd\te\nf\n\tg\th\tiiii\tj\n",
	"x\ty\n\nlonger cell\tz\n",
	"é\tü\nab\tc\n", "日本\tx\na\ty\n",
	"a\vb\tc\nd\te\vf\n",
	"a\tb\fc\tdd\nee\tf\n", "a\tb\f", "\f\f",
	"k\tv\tsrc\nkey.one\t\tdefault\nk2\tvalue\t\n",
	"tail\tno newline\nx\ty\tz",
}

func tabwriterOut(s string) string {
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	tw.Write([]byte(s))
	tw.Flush()
	return b.String()
}

func tableOut(s string) string {
	var b bytes.Buffer
	t := newTable(&b)
	t.Write([]byte(s))
	if err := t.Flush(); err != nil {
		panic(err)
	}
	return b.String()
}

// TestTableMatchesTabwriter: table lays out every case byte for byte as
// text/tabwriter does with the settings the package used.
func TestTableMatchesTabwriter(t *testing.T) {
	for _, c := range tableCases {
		if got, want := tableOut(c), tabwriterOut(c); got != want {
			t.Errorf("table(%q) =\n%q\nwant\n%q", c, got, want)
		}
	}
}

// TestTableRandom: random tables of short cells, tabs, newlines and the
// rarer separators lay out as text/tabwriter lays them out.
func TestTableRandom(t *testing.T) {
	pieces := []string{"\t", "\t", "\n", "\n", "a", "bb", "cccc", "é", "", " ", "\v", "\f", "key.long.name"}
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		var b strings.Builder
		for range r.IntN(24) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		if got, want := tableOut(s), tabwriterOut(s); got != want {
			t.Fatalf("table(%q) =\n%q\nwant\n%q", s, got, want)
		}
	}
}

// TestTableWritesAcrossCalls: a table written in pieces, as fmt.Fprintf
// writes it, and flushed twice, prints what tabwriter prints.
func TestTableWritesAcrossCalls(t *testing.T) {
	var got, want bytes.Buffer
	tb, tw := newTable(&got), tabwriter.NewWriter(&want, 0, 4, 2, ' ', 0)
	for _, w := range []interface{ Write([]byte) (int, error) }{tb, tw} {
		w.Write([]byte("A\tB"))
		w.Write([]byte("\tC\nlong value\tx"))
		w.Write([]byte("\ty\n"))
	}
	tb.Flush()
	tw.Flush()
	for _, w := range []interface{ Write([]byte) (int, error) }{tb, tw} {
		w.Write([]byte("after\tflush\n"))
	}
	tb.Flush()
	tw.Flush()
	if got.String() != want.String() {
		t.Errorf("got\n%q\nwant\n%q", got.String(), want.String())
	}
}
