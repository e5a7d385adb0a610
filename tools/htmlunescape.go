package tools

import (
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark/util"
)

// unescapeHTML decodes character references in s exactly as the standard
// library's html.UnescapeString does (a test holds it to that on every
// form), but looks names up in goldmark's HTML5 entity table, which the
// binary already links for Telegram rendering, rather than in package
// html's copy of the same table (~70 KB of binary).
func unescapeHTML(s string) string {
	i := strings.IndexByte(s, '&')
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i >= 0 {
		b.WriteString(s[:i])
		n := writeCharRef(&b, s[i:])
		s = s[i+n:]
		i = strings.IndexByte(s, '&')
	}
	b.WriteString(s)
	return b.String()
}

// legacyEntities are the names HTML decodes without a closing semicolon.
const legacyEntities = " AElig AMP Aacute Acirc Agrave Aring Atilde Auml COPY Ccedil ETH Eacute Ecirc Egrave Euml GT" +
	" Iacute Icirc Igrave Iuml LT Ntilde Oacute Ocirc Ograve Oslash Otilde Ouml QUOT REG THORN Uacute Ucirc" +
	" Ugrave Uuml Yacute aacute acirc acute aelig agrave amp aring atilde auml brvbar ccedil cedil cent copy" +
	" curren deg divide eacute ecirc egrave eth euml frac12 frac14 frac34 gt iacute icirc iexcl igrave iquest" +
	" iuml laquo lt macr micro middot nbsp not ntilde oacute ocirc ograve ordf ordm oslash otilde ouml para" +
	" plusmn pound quot raquo reg sect shy sup1 sup2 sup3 szlig thorn times uacute ucirc ugrave uml uuml" +
	" yacute yen yuml "

// longestLegacyEntity is the length of the longest of legacyEntities.
const longestLegacyEntity = 6

// legacyEntity returns the characters of name when it is one of
// legacyEntities.
func legacyEntity(name string) ([]byte, bool) {
	if len(name) < 2 || len(name) > longestLegacyEntity || !strings.Contains(legacyEntities, " "+name+" ") {
		return nil, false
	}
	e, ok := util.LookUpHTML5EntityByName(name)
	if !ok {
		return nil, false
	}
	return e.Characters, true
}

// cp1252 is what the numeric references 0x80 to 0x9F stand for (as in
// Windows-1252), as HTML decodes them.
var cp1252 = [32]rune{
	'\u20AC', '\u0081', '\u201A', '\u0192', '\u201E', '\u2026', '\u2020', '\u2021',
	'\u02C6', '\u2030', '\u0160', '\u2039', '\u0152', '\u008D', '\u017D', '\u008F',
	'\u0090', '\u2018', '\u2019', '\u201C', '\u201D', '\u2022', '\u2013', '\u2014',
	'\u02DC', '\u2122', '\u0161', '\u203A', '\u0153', '\u009D', '\u017E', '\u0178',
}

// writeCharRef decodes the character reference that s starts with (s[0]
// is '&') into b and returns how many bytes of s it took; what is not a
// reference is copied as it is.
func writeCharRef(b *strings.Builder, s string) int {
	if len(s) > 1 && s[1] == '#' {
		return writeNumericRef(b, s)
	}
	i := 1
	for i < len(s) && isAlnum(s[i]) {
		i++
	}
	semi := i < len(s) && s[i] == ';'
	name := s[1:i]
	if semi {
		i++
	}
	if name != "" {
		if semi {
			if e, ok := util.LookUpHTML5EntityByName(name); ok {
				b.Write(e.Characters)
				return i
			}
			if name == "Abreve" { // the one name goldmark's table lacks
				b.WriteRune('\u0102')
				return i
			}
		} else if c, ok := legacyEntity(name); ok {
			b.Write(c)
			return i
		}
		// The longest legacy name that starts the word, semicolon or not.
		for j := min(i-2, longestLegacyEntity); j > 1; j-- {
			if c, ok := legacyEntity(name[:j]); ok {
				b.Write(c)
				return j + 1
			}
		}
	}
	b.WriteString(s[:i])
	return i
}

// writeNumericRef decodes "&#NNN;" or "&#xHHH;" (the semicolon optional)
// at the start of s.
func writeNumericRef(b *strings.Builder, s string) int {
	if len(s) <= 3 {
		b.WriteByte('&')
		return 1
	}
	i := 2
	hex := s[i] == 'x' || s[i] == 'X'
	if hex {
		i++
	}
	var x rune
	for i < len(s) {
		c := s[i]
		i++
		switch {
		case '0' <= c && c <= '9':
			if hex {
				x = 16*x + rune(c-'0')
			} else {
				x = 10*x + rune(c-'0')
			}
			continue
		case hex && 'a' <= c && c <= 'f':
			x = 16*x + rune(c-'a') + 10
			continue
		case hex && 'A' <= c && c <= 'F':
			x = 16*x + rune(c-'A') + 10
			continue
		}
		if c != ';' {
			i--
		}
		break
	}
	if i <= 3 {
		b.WriteByte('&')
		return 1
	}
	switch {
	case 0x80 <= x && x <= 0x9F:
		x = cp1252[x-0x80]
	case x == 0 || (0xD800 <= x && x <= 0xDFFF) || x > utf8.MaxRune:
		x = utf8.RuneError
	}
	b.WriteRune(x)
	return i
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}
