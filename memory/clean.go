package memory

import (
	"strings"
	"unicode/utf8"
)

// CleanText returns b as text fit to go into a model's prompt, and whether
// that changed anything: invalid UTF-8 becomes U+FFFD, and NUL bytes and
// the other C0 control characters except tab, newline and carriage return
// are removed. Such bytes in a Markdown file are damage (a crash, a bad
// editor, a binary written by mistake); a model shown them may refuse the
// request or echo garbage.
func CleanText(b []byte) (text string, changed bool) {
	clean := true
	for _, c := range b {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f {
			clean = false
			break
		}
	}
	if clean && utf8.Valid(b) {
		return string(b), false
	}
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0x7f {
			return -1
		}
		return r
	}, s)
	return s, true
}
