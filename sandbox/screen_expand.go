package sandbox

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// This file decodes the words the screen can know before a command runs:
// brace expansion and quote removal. It replaces mvdan.cc/sh/v3/expand,
// whose evaluator (and os/user, for ~name) the screen never needs; the
// equivalence test holds it to that package's results.

// errNotLiteral marks a word whose value is only known when it runs, or
// that the decoder cannot reproduce exactly; the screen treats it as
// computed.
var errNotLiteral = errors.New("the word is not a literal")

// braceWords calls yield with each word brace expansion makes of word,
// in the order bash makes them, and reports whether yield asked for
// more. A word without brace expansions yields itself once. Words may
// share parts.
func braceWords(word *syntax.Word, yield func(*syntax.Word) bool) (bool, error) {
	for i, wp := range word.Parts {
		br, ok := wp.(*syntax.BraceExp)
		if !ok {
			continue
		}
		left, rest := word.Parts[:i], word.Parts[i+1:]
		// Each alternative is expanded with the rest of the word (which
		// may hold further braces), then prefixed with what came before.
		next := func(parts []syntax.WordPart) (bool, error) {
			return braceWords(&syntax.Word{Parts: parts}, func(w *syntax.Word) bool {
				w.Parts = slices.Concat(left, w.Parts)
				return yield(w)
			})
		}
		if !br.Sequence {
			for _, elem := range br.Elems {
				if more, err := next(slices.Concat(elem.Parts, rest)); !more || err != nil {
					return more, err
				}
			}
			return true, nil
		}
		seq, err := braceSeq(br)
		if err != nil {
			return false, err
		}
		for lit := range seq {
			if more, err := next(append([]syntax.WordPart{&syntax.Lit{Value: lit}}, rest...)); !more || err != nil {
				return more, err
			}
		}
		return true, nil
	}
	return yield(&syntax.Word{Parts: slices.Clone(word.Parts)}), nil
}

// braceSeq returns the words of a sequence expression, {1..10..2} or
// {a..e}: numbers (padded to the wider end when either has a leading
// zero) or single ASCII letters, stepping by the absolute increment. The
// parser only makes sequences of those; any other is errNotLiteral.
func braceSeq(br *syntax.BraceExp) (func(yield func(string) bool), error) {
	if len(br.Elems) < 2 || len(br.Elems) > 3 {
		return nil, errNotLiteral
	}
	fromLit, toLit := br.Elems[0].Lit(), br.Elems[1].Lit()
	from, err1 := strconv.ParseInt(fromLit, 10, 64)
	to, err2 := strconv.ParseInt(toLit, 10, 64)
	chars := err1 != nil || err2 != nil
	if chars {
		if !seqLetter(fromLit) || !seqLetter(toLit) {
			return nil, errNotLiteral
		}
		from, to = int64(fromLit[0]), int64(toLit[0])
	}
	width := 0
	if !chars && (leadingZero(fromLit) || leadingZero(toLit)) {
		width = max(len(fromLit), len(toLit))
	}
	incr := int64(1)
	if len(br.Elems) == 3 {
		n, err := strconv.ParseInt(br.Elems[2].Lit(), 10, 64)
		if err != nil {
			return nil, errNotLiteral
		}
		if n < 0 {
			n = -n
		}
		if n != 0 {
			incr = n
		}
	}
	up := from <= to
	if !up {
		incr = -incr
	}
	return func(yield func(string) bool) {
		// The caller stops long before an int64 could wrap.
		for n := from; up && n <= to || !up && n >= to; n += incr {
			var s string
			switch {
			case chars:
				s = string(rune(n))
			case width > 0:
				s = fmt.Sprintf("%0*d", width, n)
			default:
				s = strconv.FormatInt(n, 10)
			}
			if !yield(s) {
				return
			}
		}
	}, nil
}

func seqLetter(s string) bool {
	return len(s) == 1 && (s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z')
}

func leadingZero(s string) bool {
	s = strings.TrimPrefix(s, "-")
	return len(s) > 1 && s[0] == '0'
}

// literal decodes a word that holds no parameter, arithmetic or command
// expansion: single quotes, $'...' escapes and double quotes (of literal
// text only) are removed. Unquoted text is kept as written, backslashes
// and a leading tilde included: the caller marks such words quoted or
// globbed and judges them from their raw text. Anything else, or an
// escape bash would read differently, is errNotLiteral.
func literal(word *syntax.Word) (string, error) {
	var sb strings.Builder
	for _, p := range word.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			sb.WriteString(cutNUL(p.Value))
		case *syntax.SglQuoted:
			if !p.Dollar {
				sb.WriteString(p.Value)
				continue
			}
			s, err := ansiC(p.Value)
			if err != nil {
				return "", err
			}
			sb.WriteString(cutNUL(s))
		case *syntax.DblQuoted:
			if p.Dollar { // $"..." is translated by the locale
				return "", errNotLiteral
			}
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return "", errNotLiteral
				}
				s, err := unescapeDouble(lit.Value)
				if err != nil {
					return "", err
				}
				sb.WriteString(cutNUL(s))
			}
		default:
			return "", errNotLiteral
		}
	}
	return sb.String(), nil
}

// cutNUL ends s at its first NUL byte, as a C string would.
func cutNUL(s string) string {
	s, _, _ = strings.Cut(s, "\x00")
	return s
}

// unescapeDouble removes the backslashes that escape $ ` " and \ inside
// double quotes; any other backslash stays. The parser has already
// removed backslash-newline; one left over, or a trailing lone
// backslash, is not decoded.
func unescapeDouble(s string) (string, error) {
	if !strings.Contains(s, "\\") {
		return s, nil
	}
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		b := s[i]
		if b == '\\' {
			if i+1 == len(s) || s[i+1] == '\n' {
				return "", errNotLiteral
			}
			switch s[i+1] {
			case '$', '`', '"', '\\':
				i++
				b = s[i]
			}
		}
		sb.WriteByte(b)
	}
	return sb.String(), nil
}

// ansiC decodes the escapes of a $'...' string: \a \b \e \E \f \n \r \t
// \v \\ \' \" \?, \nnn (octal), \xHH, \uHHHH and \UHHHHHHHH. An unknown
// escape stays as written, as in bash. \cX (a control character), an
// octal value past \377 and a \u or \U past ASCII (whose bytes depend
// on the locale) are not decoded.
func ansiC(s string) (string, error) {
	// Pairs of an escape letter and the byte it stands for.
	const simple = "a\ab\be\x1bE\x1bf\fn\nr\rt\tv\v\\\\''\"\"??"
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		if i == len(s) {
			out = append(out, '\\')
			break
		}
		c = s[i]
		if k := strings.IndexByte(simple, c); k >= 0 && k%2 == 0 {
			out = append(out, simple[k+1])
			continue
		}
		base, width := 16, 0
		switch c {
		case 'c':
			return "", errNotLiteral
		case '0', '1', '2', '3', '4', '5', '6', '7':
			base, width = 8, 3
			i-- // the first digit is part of the number
		case 'x':
			width = 2
		case 'u':
			width = 4
		case 'U':
			width = 8
		}
		j := i + 1
		for j < len(s) && j <= i+width && digitIn(s[j], base) {
			j++
		}
		if j == i+1 { // an unknown escape, or \x \u \U without digits
			out = append(out, '\\', c)
			continue
		}
		n, _ := strconv.ParseUint(s[i+1:j], base, 32)
		i = j - 1
		switch {
		case base == 8 && n > 0o377:
			// bash keeps the low byte, mvdan.cc/sh gives 0xff.
			return "", errNotLiteral
		case c == 'u' || c == 'U':
			if n >= utf8.RuneSelf {
				// Past ASCII bash's result depends on the locale.
				return "", errNotLiteral
			}
		}
		out = append(out, byte(n))
	}
	return string(out), nil
}

// digitIn reports whether b is a digit of base 8 or 16.
func digitIn(b byte, base int) bool {
	if base == 8 {
		return b >= '0' && b <= '7'
	}
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F'
}
