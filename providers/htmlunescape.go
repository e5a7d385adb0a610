package providers

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// unescapeHTML decodes character references in s for an error snippet as
// the standard library's html.UnescapeString does (a test holds it to that
// on every form it knows), with one difference: it knows the named
// references of legacyEntities and namedEntities only, and leaves any
// other name as it is. The module depends on the standard library alone,
// and package html's table of all 2,231 names costs ~60 KB of a binary
// whose other HTML decoding uses goldmark's copy of that table.
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

// legacyEntities are the names HTML decodes without a closing semicolon
// too, each with its code point in hex.
const legacyEntities = " AElig:C6 AMP:26 Aacute:C1 Acirc:C2 Agrave:C0 Aring:C5 Atilde:C3 Auml:C4 COPY:A9 Ccedil:C7" +
	" ETH:D0 Eacute:C9 Ecirc:CA Egrave:C8 Euml:CB GT:3E Iacute:CD Icirc:CE Igrave:CC Iuml:CF LT:3C" +
	" Ntilde:D1 Oacute:D3 Ocirc:D4 Ograve:D2 Oslash:D8 Otilde:D5 Ouml:D6 QUOT:22 REG:AE THORN:DE" +
	" Uacute:DA Ucirc:DB Ugrave:D9 Uuml:DC Yacute:DD aacute:E1 acirc:E2 acute:B4 aelig:E6 agrave:E0" +
	" amp:26 aring:E5 atilde:E3 auml:E4 brvbar:A6 ccedil:E7 cedil:B8 cent:A2 copy:A9 curren:A4" +
	" deg:B0 divide:F7 eacute:E9 ecirc:EA egrave:E8 eth:F0 euml:EB frac12:BD frac14:BC frac34:BE" +
	" gt:3E iacute:ED icirc:EE iexcl:A1 igrave:EC iquest:BF iuml:EF laquo:AB lt:3C macr:AF micro:B5" +
	" middot:B7 nbsp:A0 not:AC ntilde:F1 oacute:F3 ocirc:F4 ograve:F2 ordf:AA ordm:BA oslash:F8" +
	" otilde:F5 ouml:F6 para:B6 plusmn:B1 pound:A3 quot:22 raquo:BB reg:AE sect:A7 shy:AD sup1:B9" +
	" sup2:B2 sup3:B3 szlig:DF thorn:FE times:D7 uacute:FA ucirc:FB ugrave:F9 uml:A8 uuml:FC" +
	" yacute:FD yen:A5 yuml:FF "

// namedEntities are further names decoded with a semicolon: those error
// pages' titles use most.
const namedEntities = " apos:27 ndash:2013 mdash:2014 lsquo:2018 rsquo:2019 sbquo:201A ldquo:201C rdquo:201D" +
	" bdquo:201E hellip:2026 bull:2022 trade:2122 euro:20AC dagger:2020 Dagger:2021 permil:2030" +
	" lsaquo:2039 rsaquo:203A thinsp:2009 ensp:2002 emsp:2003 zwnj:200C zwj:200D lrm:200E rlm:200F "

// longestLegacyEntity is the length of the longest of legacyEntities.
const longestLegacyEntity = 6

// lookupEntity returns the code point of name in table.
func lookupEntity(table, name string) (rune, bool) {
	i := strings.Index(table, " "+name+":")
	if name == "" || i < 0 {
		return 0, false
	}
	hex := table[i+len(name)+2:]
	hex = hex[:strings.IndexByte(hex, ' ')]
	r, err := strconv.ParseUint(hex, 16, 32)
	return rune(r), err == nil
}

// legacyEntity returns the code point of name when it is one of
// legacyEntities.
func legacyEntity(name string) (rune, bool) {
	if len(name) < 2 || len(name) > longestLegacyEntity {
		return 0, false
	}
	return lookupEntity(legacyEntities, name)
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
			if r, ok := lookupEntity(legacyEntities, name); ok {
				b.WriteRune(r)
				return i
			}
			if r, ok := lookupEntity(namedEntities, name); ok {
				b.WriteRune(r)
				return i
			}
		} else if r, ok := legacyEntity(name); ok {
			b.WriteRune(r)
			return i
		}
		// The longest legacy name that starts the word, semicolon or not.
		for j := min(i-2, longestLegacyEntity); j > 1; j-- {
			if r, ok := legacyEntity(name[:j]); ok {
				b.WriteRune(r)
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
