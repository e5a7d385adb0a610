package sandbox

import (
	"errors"
	"strings"
)

// word is one shell word after quote removal.
type word struct {
	// text is the word with quotes and backslashes removed and expansions
	// left as written.
	text string
	// raw is the word as it appeared in the command line.
	raw string
	// dynamic marks a word whose final value is computed when the command
	// runs: a parameter expansion, a command substitution, ANSI-C quoting.
	dynamic bool
	// quoted marks a word that used quotes or backslashes anywhere.
	quoted bool
}

// redirect is one redirection of a simple command.
type redirect struct {
	op     string // ">", ">>", "<", "<<", "<<<", "&>", ">&", "<>", ">|", "<&", "&>>"
	target word
}

// simpleCmd is one command of a command line: what runs between two
// control operators.
type simpleCmd struct {
	words  []word
	redirs []redirect
	// pipedIn is set when the command reads the output of the one before.
	pipedIn bool
}

// parsed is a lexed command line.
type parsed struct {
	cmds []simpleCmd
	// subs holds the text of every command substitution and process
	// substitution, which run as commands of their own.
	subs []string
	// procSub marks a process substitution, <(...) or >(...).
	procSub bool
	// funcDef marks a function definition, name() { ... }.
	funcDef bool
}

var errUnbalanced = errors.New("the command has an unclosed quote, substitution or bracket")

// lex splits a command line the way a POSIX shell would, closely enough to
// find every command word in it. It does not expand anything; it records
// where expansion would happen.
func lex(s string) (*parsed, error) {
	l := &lexer{src: []rune(s), p: &parsed{}}
	if err := l.run(); err != nil {
		return nil, err
	}
	return l.p, nil
}

type lexer struct {
	src []rune
	i   int
	p   *parsed

	cur      simpleCmd
	w        strings.Builder
	raw      strings.Builder
	inWord   bool
	dynamic  bool
	quoted   bool
	pendOp   string // redirection operator waiting for its target
	heredocs []string
	nextPipe bool
}

func (l *lexer) peek(off int) rune {
	if l.i+off < len(l.src) {
		return l.src[l.i+off]
	}
	return 0
}

func (l *lexer) endWord() {
	if !l.inWord {
		return
	}
	wd := word{text: l.w.String(), raw: l.raw.String(), dynamic: l.dynamic, quoted: l.quoted}
	l.w.Reset()
	l.raw.Reset()
	l.inWord, l.dynamic, l.quoted = false, false, false
	if l.pendOp != "" {
		if l.pendOp == "<<" || l.pendOp == "<<-" {
			l.heredocs = append(l.heredocs, l.pendOp+"\x00"+wd.text)
		}
		l.cur.redirs = append(l.cur.redirs, redirect{op: l.pendOp, target: wd})
		l.pendOp = ""
		return
	}
	l.cur.words = append(l.cur.words, wd)
}

func (l *lexer) endCmd() {
	l.endWord()
	if len(l.cur.words) > 0 || len(l.cur.redirs) > 0 {
		l.cur.pipedIn = l.nextPipe
		l.p.cmds = append(l.p.cmds, l.cur)
	}
	l.cur = simpleCmd{}
	l.nextPipe = false
}

func (l *lexer) add(r rune) {
	l.inWord = true
	l.w.WriteRune(r)
	l.raw.WriteRune(r)
}

func (l *lexer) run() error {
	for l.i < len(l.src) {
		c := l.src[l.i]
		switch {
		case c == ' ' || c == '\t':
			l.endWord()
			l.i++
		case c == '\n' || c == '\r':
			l.endCmd()
			l.i++
			l.skipHeredocs()
		case c == ';' || c == '&' || c == '|':
			if c == '&' && l.peek(1) == '>' {
				l.endWord()
				op := "&>"
				l.i += 2
				if l.peek(0) == '>' {
					op = "&>>"
					l.i++
				}
				l.pendOp = op
				continue
			}
			l.endCmd()
			pipe := c == '|' && l.peek(1) != '|'
			l.i++
			if l.peek(0) == c || (c == '|' && l.peek(0) == '&') {
				l.i++
			}
			l.nextPipe = pipe
		case c == '#' && !l.inWord:
			for l.i < len(l.src) && l.src[l.i] != '\n' {
				l.i++
			}
		case c == '(' || c == ')':
			if c == '(' && l.inWord && l.peek(1) == ')' {
				l.p.funcDef = true
			}
			if c == '(' && !l.inWord && l.peek(1) == ')' {
				l.p.funcDef = true
			}
			l.endCmd()
			l.i++
		case (c == '<' || c == '>') && l.peek(1) == '(':
			l.endWord()
			l.i += 2
			inner, err := l.captureParen()
			if err != nil {
				return err
			}
			l.p.subs = append(l.p.subs, inner)
			l.p.procSub = true
			l.inWord, l.dynamic = true, true
			l.raw.WriteString(string(c) + "(" + inner + ")")
		case c == '<' || c == '>':
			l.redirOp()
		case c == '\\':
			l.quoted = true
			if l.peek(1) == '\n' {
				l.i += 2
				continue
			}
			if l.i+1 < len(l.src) {
				l.raw.WriteRune('\\')
				l.add(l.src[l.i+1])
			}
			l.i += 2
		case c == '\'':
			l.quoted, l.inWord = true, true
			end := indexRune(l.src, l.i+1, '\'')
			if end < 0 {
				return errUnbalanced
			}
			s := string(l.src[l.i+1 : end])
			l.w.WriteString(s)
			l.raw.WriteString("'" + s + "'")
			l.i = end + 1
		case c == '"':
			if err := l.doubleQuoted(); err != nil {
				return err
			}
		case c == '`':
			if err := l.backtick(); err != nil {
				return err
			}
		case c == '$':
			if err := l.dollar(false); err != nil {
				return err
			}
		default:
			l.add(c)
			l.i++
		}
	}
	if l.pendOp != "" && !l.inWord {
		return errors.New("a redirection has no target")
	}
	l.endCmd()
	return nil
}

// redirOp reads a redirection operator. A word made only of digits just
// before it is the file descriptor, not a word of the command.
func (l *lexer) redirOp() {
	if l.inWord && !l.quoted && isDigits(l.w.String()) {
		l.w.Reset()
		l.raw.Reset()
		l.inWord = false
	}
	l.endWord()
	c := l.src[l.i]
	op := string(c)
	l.i++
	switch n := l.peek(0); {
	case c == '<' && n == '<':
		op = "<<"
		l.i++
		if l.peek(0) == '<' {
			op = "<<<"
			l.i++
		} else if l.peek(0) == '-' {
			op = "<<-"
			l.i++
		}
	case c == '>' && n == '>':
		op = ">>"
		l.i++
	case n == '&' || (c == '>' && n == '|') || (c == '<' && n == '>'):
		op += string(n)
		l.i++
	}
	l.pendOp = op
}

func (l *lexer) doubleQuoted() error {
	l.quoted, l.inWord = true, true
	l.raw.WriteRune('"')
	l.i++
	for l.i < len(l.src) {
		c := l.src[l.i]
		switch c {
		case '"':
			l.raw.WriteRune('"')
			l.i++
			return nil
		case '\\':
			n := l.peek(1)
			if n == '$' || n == '`' || n == '"' || n == '\\' || n == '\n' {
				l.raw.WriteRune('\\')
				if n != '\n' {
					l.w.WriteRune(n)
					l.raw.WriteRune(n)
				}
				l.i += 2
				continue
			}
			l.w.WriteRune(c)
			l.raw.WriteRune(c)
			l.i++
		case '`':
			if err := l.backtick(); err != nil {
				return err
			}
		case '$':
			if err := l.dollar(true); err != nil {
				return err
			}
		default:
			l.w.WriteRune(c)
			l.raw.WriteRune(c)
			l.i++
		}
	}
	return errUnbalanced
}

func (l *lexer) backtick() error {
	end := -1
	for j := l.i + 1; j < len(l.src); j++ {
		if l.src[j] == '\\' {
			j++
			continue
		}
		if l.src[j] == '`' {
			end = j
			break
		}
	}
	if end < 0 {
		return errUnbalanced
	}
	inner := string(l.src[l.i+1 : end])
	l.p.subs = append(l.p.subs, inner)
	l.inWord, l.dynamic = true, true
	l.raw.WriteString("`" + inner + "`")
	l.w.WriteString("`" + inner + "`")
	l.i = end + 1
	return nil
}

// dollar reads an expansion starting at '$'.
func (l *lexer) dollar(inDouble bool) error {
	n := l.peek(1)
	switch {
	case n == '(':
		l.i += 2
		inner, err := l.captureParen()
		if err != nil {
			return err
		}
		// Arithmetic $(( )) is screened like a substitution too: it can
		// hold one.
		l.p.subs = append(l.p.subs, inner)
		l.inWord, l.dynamic = true, true
		l.raw.WriteString("$(" + inner + ")")
		l.w.WriteString("$(" + inner + ")")
	case n == '{':
		end := indexRune(l.src, l.i+2, '}')
		if end < 0 {
			return errUnbalanced
		}
		s := string(l.src[l.i : end+1])
		if strings.Contains(s, "$(") || strings.Contains(s, "`") {
			// ${x:-$(cmd)} runs cmd: screen the inside as a command line.
			l.p.subs = append(l.p.subs, s[2:len(s)-1])
		}
		l.inWord, l.dynamic = true, true
		l.raw.WriteString(s)
		l.w.WriteString(s)
		l.i = end + 1
	case n == '\'' && !inDouble:
		end := -1
		for j := l.i + 2; j < len(l.src); j++ {
			if l.src[j] == '\\' {
				j++
				continue
			}
			if l.src[j] == '\'' {
				end = j
				break
			}
		}
		if end < 0 {
			return errUnbalanced
		}
		s := string(l.src[l.i : end+1])
		l.inWord, l.dynamic, l.quoted = true, true, true
		l.raw.WriteString(s)
		l.w.WriteString(s)
		l.i = end + 1
	case isNameStart(n) || isDigit(n) || strings.ContainsRune("@*#?$!-", n):
		j := l.i + 1
		if isNameStart(n) {
			for j < len(l.src) && isNameChar(l.src[j]) {
				j++
			}
		} else {
			j++
		}
		s := string(l.src[l.i:j])
		l.inWord, l.dynamic = true, true
		l.raw.WriteString(s)
		l.w.WriteString(s)
		l.i = j
	default:
		l.add('$')
		l.i++
	}
	return nil
}

// captureParen returns the text up to the parenthesis closing one already
// consumed, honouring nesting and quotes.
func (l *lexer) captureParen() (string, error) {
	depth := 1
	start := l.i
	for l.i < len(l.src) {
		switch l.src[l.i] {
		case '\\':
			l.i++
		case '\'':
			end := indexRune(l.src, l.i+1, '\'')
			if end < 0 {
				return "", errUnbalanced
			}
			l.i = end
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				s := string(l.src[start:l.i])
				l.i++
				return s, nil
			}
		}
		l.i++
	}
	return "", errUnbalanced
}

// skipHeredocs consumes the bodies of here-documents opened on the line
// just ended: they are data for the command's standard input, not commands.
func (l *lexer) skipHeredocs() {
	for _, h := range l.heredocs {
		op, delim, _ := strings.Cut(h, "\x00")
		for l.i < len(l.src) {
			end := indexRune(l.src, l.i, '\n')
			if end < 0 {
				end = len(l.src)
			}
			line := string(l.src[l.i:end])
			l.i = min(end+1, len(l.src))
			if op == "<<-" {
				line = strings.TrimLeft(line, "\t")
			}
			if line == delim {
				break
			}
		}
	}
	l.heredocs = nil
}

func indexRune(src []rune, from int, r rune) int {
	for j := from; j < len(src); j++ {
		if src[j] == r {
			return j
		}
	}
	return -1
}

func isDigit(r rune) bool     { return r >= '0' && r <= '9' }
func isNameStart(r rune) bool { return r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') }
func isNameChar(r rune) bool  { return isNameStart(r) || isDigit(r) }

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !isDigit(r) {
			return false
		}
	}
	return true
}
