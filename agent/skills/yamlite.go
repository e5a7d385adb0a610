package skills

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The YAML a SKILL.md frontmatter uses, read without a YAML library: a
// block mapping of keys to plain, quoted ('…', "…"), literal (|) or folded
// (>) text with chomping (- +), block lists (- item) and mappings nested
// by indentation, flow lists ([a, b]) and flow mappings ({a: b}), comments
// and ~/null. That is all the Agent Skills format and the skills written
// for other agents use; anchors, aliases and tags are refused with the
// line that holds them. A YAML library would cost every joshbot process
// its package initialisation and the binary a quarter of a MiB (issue 24).

// nodeKind is what a YAML node is.
type nodeKind int

const (
	scalarNode nodeKind = iota + 1
	sequenceNode
	mappingNode
)

// node is one YAML node. A mapping's content alternates keys and values.
type node struct {
	kind    nodeKind
	value   string
	null    bool // a scalar written as nothing, ~ or null
	line    int  // 1-based, in the parsed text
	content []*node
}

// yamlError is a syntax error at a line of the parsed text.
type yamlError struct {
	line int
	msg  string
}

func (e *yamlError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

// yamlParser reads a block of YAML line by line.
type yamlParser struct {
	lines []string
	i     int // the next line to read
}

// parseYAML parses text into its root node; nil when it holds nothing but
// blank lines and comments.
func parseYAML(text string) (*node, error) {
	// A final line break ends the last line; it opens no empty one.
	p := &yamlParser{lines: strings.Split(strings.TrimSuffix(text, "\n"), "\n")}
	for n, l := range p.lines {
		if strings.HasPrefix(strings.TrimLeft(l, " "), "\t") && strings.TrimSpace(l) != "" {
			return nil, &yamlError{n + 1, "found a tab character where an indentation space is expected"}
		}
	}
	if !p.skipBlank() {
		return nil, nil
	}
	ind := indentOf(p.lines[p.i])
	root, err := p.block(ind, -1)
	if err != nil {
		return nil, err
	}
	if p.skipBlank() {
		return nil, &yamlError{p.i + 1, "did not find the expected key: the line is indented less than the block above it"}
	}
	return root, nil
}

// skipBlank moves past blank and comment lines and reports whether a line
// is left.
func (p *yamlParser) skipBlank() bool {
	for ; p.i < len(p.lines); p.i++ {
		t := strings.TrimSpace(p.lines[p.i])
		if t != "" && !strings.HasPrefix(t, "#") {
			return true
		}
	}
	return false
}

func indentOf(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }

// isItem reports whether t (a line without its indentation) starts a
// block list item.
func isItem(t string) bool { return t == "-" || strings.HasPrefix(t, "- ") }

// block parses the block starting at the current line, indented ind: a
// list, a mapping, or a lone scalar, which may continue on any line
// indented more than parent.
func (p *yamlParser) block(ind, parent int) (*node, error) {
	t := strings.TrimSpace(p.lines[p.i])
	if isItem(t) {
		return p.sequence(ind)
	}
	if _, _, ok, err := splitKey(t, p.i+1); err != nil {
		return nil, err
	} else if ok {
		return p.mapping(ind)
	}
	line := p.i + 1
	p.i++
	return p.value(strings.TrimLeft(p.lines[line-1], " "), parent, line, false)
}

// mapping parses key: value lines indented exactly ind.
func (p *yamlParser) mapping(ind int) (*node, error) {
	m := &node{kind: mappingNode, line: p.i + 1}
	for p.skipBlank() {
		l := p.lines[p.i]
		in := indentOf(l)
		if in < ind {
			break
		}
		line := p.i + 1
		if in > ind {
			return nil, &yamlError{line, "bad indentation of a mapping entry"}
		}
		key, rest, ok, err := splitKey(l[in:], line)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, &yamlError{line, "could not find the expected ':' of a key: value line"}
		}
		p.i++
		v, err := p.value(rest, ind, line, true)
		if err != nil {
			return nil, err
		}
		m.content = append(m.content, &node{kind: scalarNode, value: key, line: line}, v)
	}
	return m, nil
}

// sequence parses "- item" lines indented exactly ind.
func (p *yamlParser) sequence(ind int) (*node, error) {
	s := &node{kind: sequenceNode, line: p.i + 1}
	for p.skipBlank() {
		l := p.lines[p.i]
		in := indentOf(l)
		if in < ind {
			break
		}
		line := p.i + 1
		t := l[in:]
		if in == ind && !isItem(t) {
			break // the next key of a mapping whose value this list is
		}
		if in > ind {
			return nil, &yamlError{line, "bad indentation of a list item"}
		}
		rest := strings.TrimLeft(strings.TrimPrefix(t, "-"), " ")
		if _, _, isMap, err := splitKey(rest, line); err != nil {
			return nil, err
		} else if isMap || isItem(rest) {
			// "- key: value" (or "- - x") opens a block whose column is
			// where the item's text starts.
			col := len(l) - len(rest)
			p.lines[p.i] = strings.Repeat(" ", col) + rest
			v, err := p.block(col, ind)
			if err != nil {
				return nil, err
			}
			s.content = append(s.content, v)
			continue
		}
		p.i++
		v, err := p.value(rest, ind, line, false)
		if err != nil {
			return nil, err
		}
		s.content = append(s.content, v)
	}
	return s, nil
}

// splitKey splits "key: rest" and reports whether t is such a line. A key
// is plain or quoted; a plain key ends at the first ": " (or a ':' ending
// the line).
func splitKey(t string, line int) (key, rest string, ok bool, err error) {
	if t == "" || t[0] == '[' || t[0] == '{' || isItem(t) {
		return "", "", false, nil
	}
	if t[0] == '"' || t[0] == '\'' {
		v, n, err := quoted(t, line)
		if err != nil {
			return "", "", false, err
		}
		after := strings.TrimLeft(t[n:], " ")
		if after == ":" || strings.HasPrefix(after, ": ") {
			return v, strings.TrimLeft(after[1:], " "), true, nil
		}
		return "", "", false, nil
	}
	for i := 0; i < len(t); i++ {
		if t[i] == '#' && i > 0 && t[i-1] == ' ' {
			return "", "", false, nil // a comment starts before any key's colon
		}
		if t[i] == ':' && (i+1 == len(t) || t[i+1] == ' ') {
			return strings.TrimRight(t[:i], " "), strings.TrimLeft(t[i+1:], " "), true, nil
		}
	}
	return "", "", false, nil
}

// value parses the value that follows a key (or a list item's dash) on
// line: rest is the line's text after it, and the block the value may
// continue into is indented more than parent. A mapping's value (inMap)
// may also be a list at the key's own indentation.
func (p *yamlParser) value(rest string, parent, line int, inMap bool) (*node, error) {
	rest = stripComment(rest)
	switch {
	case rest == "":
		if p.skipBlank() {
			l := p.lines[p.i]
			in := indentOf(l)
			// A list may sit at its key's own indentation.
			if in > parent || (inMap && in == parent && isItem(l[in:])) {
				return p.block(in, parent)
			}
		}
		return &node{kind: scalarNode, null: true, line: line}, nil
	case rest[0] == '&' || rest[0] == '*' || rest[0] == '!':
		return nil, &yamlError{line, "anchors, aliases and tags are not supported in a skill's frontmatter"}
	case isItem(rest):
		return nil, &yamlError{line, "a list item (- ) is not allowed here: start the list on the next line"}
	case rest[0] == '|' || rest[0] == '>':
		return p.blockScalar(rest, parent, line)
	case rest[0] == '[' || rest[0] == '{':
		return p.flow(rest, line)
	case rest[0] == '"' || rest[0] == '\'':
		return p.quotedValue(rest, line)
	}
	return p.plain(rest, parent, line)
}

// stripComment drops a trailing " # comment" outside quotes.
func stripComment(s string) string {
	var q byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case q != 0:
			if c == q {
				q = 0
			}
		case c == '"' || c == '\'':
			if i == 0 || s[i-1] == ' ' || s[i-1] == '[' || s[i-1] == '{' || s[i-1] == ',' {
				q = c
			}
		case c == '#' && (i == 0 || s[i-1] == ' ' || s[i-1] == '\t'):
			return strings.TrimRight(s[:i], " \t")
		}
	}
	return strings.TrimRight(s, " \t")
}

// plain parses a plain scalar that may continue on more indented lines,
// each line break folded to a space (a blank line to a newline).
func (p *yamlParser) plain(first string, parent, line int) (*node, error) {
	if isMapValue(first) {
		return nil, &yamlError{line, "mapping values are not allowed in this context (quote a value that holds \": \")"}
	}
	var b strings.Builder
	b.WriteString(first)
	blanks := 0
	for ; p.i < len(p.lines); p.i++ {
		l := p.lines[p.i]
		t := strings.TrimSpace(l)
		if t == "" {
			blanks++
			continue
		}
		if indentOf(l) <= parent || strings.HasPrefix(t, "#") {
			break
		}
		t = stripComment(t)
		if isMapValue(t) || (strings.HasSuffix(t, ":") && !strings.Contains(t, " ")) {
			return nil, &yamlError{p.i + 1, "mapping values are not allowed in this context"}
		}
		if blanks > 0 {
			b.WriteString(strings.Repeat("\n", blanks))
		} else {
			b.WriteByte(' ')
		}
		blanks = 0
		b.WriteString(t)
	}
	v := b.String()
	switch v {
	case "~", "null", "Null", "NULL":
		return &node{kind: scalarNode, null: true, line: line}, nil
	}
	return &node{kind: scalarNode, value: v, line: line}, nil
}

// isMapValue reports whether plain text holds ": ", which YAML reads as a
// mapping where a single value was expected.
func isMapValue(s string) bool { return strings.Contains(s, ": ") || strings.HasSuffix(s, ":") }

// blockScalar parses a literal (|) or folded (>) scalar whose header is h.
func (p *yamlParser) blockScalar(h string, parent, line int) (*node, error) {
	folded := h[0] == '>'
	chomp, explicit := byte(0), 0
	for _, c := range []byte(h[1:]) {
		switch {
		case c == '-' || c == '+':
			chomp = c
		case c >= '1' && c <= '9':
			explicit = int(c - '0')
		default:
			return nil, &yamlError{line, fmt.Sprintf("unexpected %q after %c", c, h[0])}
		}
	}
	var lines []string
	ind := -1
	if explicit > 0 {
		ind = max(parent, 0) + explicit
	}
	for ; p.i < len(p.lines); p.i++ {
		l := p.lines[p.i]
		if strings.TrimSpace(l) == "" {
			lines = append(lines, "")
			continue
		}
		in := indentOf(l)
		if ind < 0 {
			if in <= parent {
				break
			}
			ind = in
		}
		if in < ind {
			break
		}
		lines = append(lines, l[ind:])
	}
	// Trailing blank lines belong to the chomping, not the text; a
	// following key's blank lines were read too and go back.
	trailing := 0
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
		trailing++
	}
	var b strings.Builder
	for k, l := range lines {
		if k > 0 {
			prev := lines[k-1]
			switch {
			case !folded || l == "" || prev == "" || strings.HasPrefix(l, " ") || strings.HasPrefix(prev, " "):
				b.WriteByte('\n')
			default:
				b.WriteByte(' ')
			}
		}
		b.WriteString(l)
	}
	v := b.String()
	if folded {
		// A blank line between folded lines is one newline, not two.
		v = strings.ReplaceAll(v, "\n\n", "\n")
	}
	switch {
	case len(lines) == 0:
		if chomp == '+' {
			v = strings.Repeat("\n", trailing)
		}
	case chomp == '-':
	case chomp == '+':
		v += strings.Repeat("\n", trailing+1)
	default:
		v += "\n"
	}
	return &node{kind: scalarNode, value: v, line: line}, nil
}

// quotedValue parses a quoted scalar that may run over several lines.
func (p *yamlParser) quotedValue(first string, line int) (*node, error) {
	text := first
	for {
		v, n, err := quoted(text, line)
		if err == nil {
			if after := stripComment(text[n:]); strings.TrimSpace(after) != "" {
				return nil, &yamlError{line, fmt.Sprintf("unexpected %q after the quoted value", strings.TrimSpace(after))}
			}
			return &node{kind: scalarNode, value: v, line: line}, nil
		}
		if e, ok := err.(*yamlError); !ok || e.msg != errUnclosed || p.i >= len(p.lines) {
			return nil, err
		}
		// A quoted scalar's line break folds to a space, as in plain text.
		next := strings.TrimSpace(p.lines[p.i])
		p.i++
		trailing := len(text) - len(strings.TrimRight(text, "\\"))
		if text[0] == '"' && trailing%2 == 1 {
			// An escaped line break joins the lines without a space.
			text = text[:len(text)-1] + next
			continue
		}
		if next == "" {
			text += "\n"
		} else if strings.HasSuffix(text, "\n") {
			text += next
		} else {
			text += " " + next
		}
	}
}

const errUnclosed = "found no closing quote"

// quoted reads the quoted scalar that starts s and returns its value and
// the bytes it took.
func quoted(s string, line int) (string, int, error) {
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case q == '\'' && c == '\'':
			if i+1 < len(s) && s[i+1] == '\'' {
				b.WriteByte('\'')
				i++
				continue
			}
			return b.String(), i + 1, nil
		case q == '"' && c == '"':
			return b.String(), i + 1, nil
		case q == '"' && c == '\\':
			if i+1 >= len(s) {
				return "", 0, &yamlError{line, errUnclosed}
			}
			r, n, err := unescape(s[i+1:])
			if err != nil {
				return "", 0, &yamlError{line, err.Error()}
			}
			b.WriteString(r)
			i += n
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, &yamlError{line, errUnclosed}
}

// unescape reads one escape of a double-quoted scalar (after its
// backslash) and returns the text and the bytes it took.
func unescape(s string) (string, int, error) {
	simple := map[byte]string{'0': "\x00", 'a': "\a", 'b': "\b", 't': "\t", '\t': "\t", 'n': "\n", 'v': "\v", 'f': "\f",
		'r': "\r", 'e': "\x1b", ' ': " ", '"': "\"", '/': "/", '\\': "\\", 'N': "\u0085", '_': "\u00a0", 'L': "\u2028", 'P': "\u2029"}
	if r, ok := simple[s[0]]; ok {
		return r, 1, nil
	}
	width := map[byte]int{'x': 2, 'u': 4, 'U': 8}[s[0]]
	if width == 0 || len(s) < 1+width {
		return "", 0, errorf("unknown escape \\%c in a double-quoted value", s[0])
	}
	n, err := strconv.ParseUint(s[1:1+width], 16, 32)
	if err != nil || !utf8.ValidRune(rune(n)) {
		return "", 0, errorf("bad escape \\%s in a double-quoted value", s[:1+width])
	}
	return string(rune(n)), 1 + width, nil
}

// flow parses a flow list or mapping, which may run over several lines
// until its brackets close.
func (p *yamlParser) flow(first string, line int) (*node, error) {
	text := first
	for !flowClosed(text) {
		if p.i >= len(p.lines) {
			return nil, &yamlError{line, "found no closing bracket of a flow value"}
		}
		text += " " + stripComment(strings.TrimSpace(p.lines[p.i]))
		p.i++
	}
	f := &flowParser{s: text, line: line}
	n, err := f.value()
	if err != nil {
		return nil, err
	}
	f.space()
	if f.pos < len(f.s) {
		return nil, &yamlError{line, fmt.Sprintf("unexpected %q after a flow value", f.s[f.pos:])}
	}
	return n, nil
}

// flowClosed reports whether every bracket opened in s is closed.
func flowClosed(s string) bool {
	depth := 0
	var q byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case q != 0:
			if c == q {
				q = 0
			}
		case (c == '"' || c == '\'') && (i == 0 || strings.IndexByte(" [{,", s[i-1]) >= 0):
			q = c
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			depth--
		}
	}
	return depth <= 0
}

// flowParser reads a flow value from one string.
type flowParser struct {
	s    string
	pos  int
	line int
}

func (f *flowParser) space() {
	for f.pos < len(f.s) && f.s[f.pos] == ' ' {
		f.pos++
	}
}

func (f *flowParser) fail(msg string) error { return &yamlError{f.line, msg} }

// value reads a list, a mapping or a scalar ending at , ] } or, for a
// key, at ": ".
func (f *flowParser) value() (*node, error) {
	f.space()
	if f.pos >= len(f.s) {
		return nil, f.fail("a flow value ends early")
	}
	switch c := f.s[f.pos]; c {
	case '[', '{':
		close := byte(']')
		n := &node{kind: sequenceNode, line: f.line}
		if c == '{' {
			close, n.kind = '}', mappingNode
		}
		f.pos++
		for {
			f.space()
			if f.pos < len(f.s) && f.s[f.pos] == close {
				f.pos++
				return n, nil
			}
			item, err := f.value()
			if err != nil {
				return nil, err
			}
			f.space()
			if n.kind == mappingNode {
				var v *node
				switch {
				case f.pos < len(f.s) && f.s[f.pos] == ':':
					f.pos++
					if v, err = f.value(); err != nil {
						return nil, err
					}
				case f.pos < len(f.s) && (f.s[f.pos] == ',' || f.s[f.pos] == close):
					v = &node{kind: scalarNode, null: true, line: f.line} // {key} is key: null
				default:
					return nil, f.fail("a flow mapping entry has no ':'")
				}
				n.content = append(n.content, item, v)
			} else {
				n.content = append(n.content, item)
			}
			f.space()
			switch {
			case f.pos < len(f.s) && f.s[f.pos] == ',':
				f.pos++
			case f.pos < len(f.s) && f.s[f.pos] == close:
			default:
				return nil, f.fail(fmt.Sprintf("expected ',' or '%c' in a flow value", close))
			}
		}
	case '"', '\'':
		v, n, err := quoted(f.s[f.pos:], f.line)
		if err != nil {
			return nil, err
		}
		f.pos += n
		return &node{kind: scalarNode, value: v, line: f.line}, nil
	case '&', '*', '!':
		return nil, f.fail("anchors, aliases and tags are not supported in a skill's frontmatter")
	}
	start := f.pos
	for f.pos < len(f.s) {
		c := f.s[f.pos]
		if c == ',' || c == ']' || c == '}' || (c == ':' && (f.pos+1 == len(f.s) || f.s[f.pos+1] == ' ')) {
			break
		}
		f.pos++
	}
	v := strings.TrimSpace(f.s[start:f.pos])
	switch v {
	case "~", "null", "Null", "NULL", "":
		return &node{kind: scalarNode, null: true, line: f.line}, nil
	}
	return &node{kind: scalarNode, value: v, line: f.line}, nil
}
