// Package angle escapes the three characters that Telegram's HTML and
// Slack's message text both reserve.
package angle

import "strings"

// Escape returns s with & < and > as &amp; &lt; and &gt;, and s itself
// when it holds none of them. It is a loop rather than a package-level
// strings.Replacer so that no package using it runs init code.
func Escape(s string) string {
	if !strings.ContainsAny(s, "&<>") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
