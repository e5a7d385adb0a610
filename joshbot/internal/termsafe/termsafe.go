// Package termsafe neutralises terminal control sequences in text that
// joshbot prints but did not write: the model's answers and the output of
// tools it quotes.
//
// A web page or a file can hold escape sequences that, printed raw, set
// the terminal's title, clear the screen, move the cursor to hide what was
// printed before, ring the bell, or (OSC 52) write the user's clipboard.
// [Text] makes every control character visible instead: the C0 controls
// (other than newline and tab) become their Unicode "control picture"
// (ESC shows as ␛), DEL shows as ␡, the C1 controls (U+0080 to U+009F,
// which include the 8-bit CSI and OSC) show as ⟨U+009B⟩, and bytes that
// are not UTF-8 become U+FFFD. Since every ESC, BEL and C1 control is
// replaced on its own, a sequence split across two streamed chunks is
// neutralised just the same, so [Text] may be applied chunk by chunk.
package termsafe

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Text returns s with every terminal control character made visible (see
// the package comment). Newlines and tabs are kept; a carriage return is
// kept only before a newline, since a lone one lets later text overwrite
// what the line showed. s is returned as is when it holds nothing to
// neutralise.
func Text(s string) string {
	if clean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r == '\r' && i+1 < len(s) && s[i+1] == '\n':
			b.WriteByte('\r')
		case r < 0x20:
			b.WriteRune(0x2400 + r) // ␀ … ␟, ␛ for ESC, ␇ for BEL
		case r == 0x7f:
			b.WriteRune('␡')
		case r >= 0x80 && r <= 0x9f:
			fmt.Fprintf(&b, "⟨U+%04X⟩", r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// clean reports whether s holds nothing Text would change.
func clean(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f || c >= 0x80 {
			if c >= 0x80 {
				return cleanUTF8(s[i:])
			}
			return false
		}
	}
	return true
}

// cleanUTF8 is clean for the rest of a string that holds non-ASCII text.
func cleanUTF8(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r <= 0x9f {
			return false
		}
	}
	return true
}

// Writer passes everything written to it through [Text]. It is meant for
// a terminal fed in chunks (a streamed answer); a multi-byte character
// split across two writes shows as U+FFFD, so write whole strings.
type Writer struct{ W io.Writer }

// Write implements io.Writer; it reports len(p) on success, whatever the
// neutralised text's length.
func (w Writer) Write(p []byte) (int, error) {
	if _, err := io.WriteString(w.W, Text(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
