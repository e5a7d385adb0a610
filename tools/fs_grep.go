package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"

	"github.com/joshbot/joshbot/sandbox/fence"
)

// Limits on grep. Matches beyond grepMaxMatches are counted no further, and
// files above grepMaxFileBytes are skipped (and the skip reported) because
// they are almost never what a model is looking for.
const (
	grepMaxMatches   = 200
	grepMaxLineLen   = 500
	grepMaxFileBytes = 16 << 20
)

type grepTool struct{ c *contained }

func (t *grepTool) Name() string { return "grep" }

func (t *grepTool) Description() string {
	return "Search file contents in the workspace with a Go (RE2) regular expression, line by line. " +
		"Output lines look like \"path:line: text\", with paths relative to the workspace. " +
		"Binary files, .git directories and files over 16 MiB are skipped. " +
		fmt.Sprintf("At most %d matches are returned and each line is cut to %d characters.", grepMaxMatches, grepMaxLineLen)
}

func (t *grepTool) Parameters() json.RawMessage {
	return grepSchema.get()
}

type grepArgs struct {
	Pattern    *string `json:"pattern" jsonschema:"Go regular expression (RE2 syntax) to search for, e.g. \"func \\w+\\(\" or \"TODO|FIXME\"."`
	Path       *string `json:"path,omitempty" jsonschema:"File or directory to search, relative to the workspace (or absolute inside it). Default: the whole workspace."`
	Include    *string `json:"include,omitempty" jsonschema:"Only search files whose name (not directory) matches this glob, e.g. \"*.go\"."`
	IgnoreCase bool    `json:"ignore_case,omitempty" jsonschema:"Match case-insensitively. Default false."`
}

var grepSchema = lazySchema{of: (*grepArgs)(nil)}

func (t *grepTool) Execute(ctx context.Context, raw json.RawMessage) (string, error) {
	const name = "grep"
	var a grepArgs
	if err := decodeArgs(name, raw, &a); err != nil {
		return "", err
	}
	if a.Pattern == nil {
		return "", missing(name, "pattern")
	}
	m, err := newLineMatcher(*a.Pattern, a.IgnoreCase)
	if err != nil {
		return "", errorf("%s: %w", name, err)
	}
	include := ""
	if a.Include != nil {
		include = *a.Include
		if _, err := path.Match(include, ""); err != nil {
			return "", errorf("%s: include %q is not a valid glob: %w", name, include, err)
		}
	}
	p := pathOrDot(a.Path)
	_, base, err := t.c.stat(p)
	if err != nil {
		return "", errorf("%s: %w", name, err)
	}

	var (
		out       strings.Builder
		matches   int
		truncated bool
		tooBig    []string
		buf       []byte
	)
	err = t.c.walk(ctx, base, func(e walkEntry) error {
		if e.isDir {
			return nil
		}
		if include != "" {
			if ok, _ := path.Match(include, filepath.Base(e.path)); !ok {
				return nil
			}
		}
		data, big, err := t.c.readFound(e.target, grepMaxFileBytes, buf)
		if err != nil {
			return nil
		}
		if cap(data) > cap(buf) {
			buf = data[:0]
		}
		if big {
			tooBig = append(tooBig, t.c.rel(e.path))
			return nil
		}
		if isBinary(data) {
			return nil
		}
		shown := t.c.rel(e.path)
		m.each(data, func(lineNo int, line []byte) bool {
			if matches == grepMaxMatches {
				truncated = true
				return false
			}
			matches++
			fmt.Fprintf(&out, "%s:%d: %s\n", shown, lineNo, clipLine(line, grepMaxLineLen))
			return true
		})
		if truncated {
			return filepath.SkipAll
		}
		return nil
	})
	if err != nil {
		return "", errorf("%s: searching %q: %w", name, p, unwrapPathErr(err))
	}
	if matches == 0 {
		fmt.Fprintf(&out, "no matches for %q in %s", *a.Pattern, t.c.rel(base))
		if include != "" {
			fmt.Fprintf(&out, " (files named %q)", include)
		}
		out.WriteByte('\n')
	}
	if truncated {
		fmt.Fprintf(&out, "[truncated at %d matches; narrow the pattern, path or include to see the rest]\n", grepMaxMatches)
	}
	if len(tooBig) > 0 {
		fmt.Fprintf(&out, "[skipped %d file(s) over %d MiB: %s]\n", len(tooBig), grepMaxFileBytes>>20, strings.Join(firstN(tooBig, 5), ", "))
	}
	return fence.Wrap("grep:"+t.c.rel(base), out.String(), nil), nil
}

// lineMatcher finds the lines of a file that a regular expression matches.
type lineMatcher struct {
	line *regexp.Regexp
	// whole is the same expression in multi-line mode, run over the entire
	// file to jump straight to candidate lines instead of testing every
	// line. It is nil when the expression uses \A or \z, which mean
	// something different over a whole file than over one line.
	whole *regexp.Regexp
}

func newLineMatcher(pattern string, ignoreCase bool) (*lineMatcher, error) {
	flags := ""
	if ignoreCase {
		flags = "(?i)"
	}
	re, err := regexp.Compile(flags + pattern)
	if err != nil {
		return nil, errorf("pattern %q is not a valid Go regular expression: %w", pattern, err)
	}
	m := &lineMatcher{line: re}
	multi := "(?m)" + flags + pattern
	if tree, err := syntax.Parse(multi, syntax.Perl); err == nil && !usesTextAnchors(tree) {
		m.whole, _ = regexp.Compile(multi)
	}
	return m, nil
}

func usesTextAnchors(re *syntax.Regexp) bool {
	if re.Op == syntax.OpBeginText || re.Op == syntax.OpEndText {
		return true
	}
	for _, sub := range re.Sub {
		if usesTextAnchors(sub) {
			return true
		}
	}
	return false
}

// each calls fn for every matching line (1-based number, text without its
// newline) until fn returns false.
//
// With the whole-file expression, a match found from the start of some line
// points at the first line that can possibly match; that line is confirmed
// with the per-line expression, since a whole-file match may run across a
// newline. Any line that matches on its own also matches at the same spot
// in the whole file, so no line is missed. If a candidate fails to confirm,
// the rest of the file is scanned line by line, which keeps a pattern that
// keeps spanning lines from going quadratic.
func (m *lineMatcher) each(data []byte, fn func(int, []byte) bool) {
	pos, lineNo := 0, 1
	if m.whole != nil {
		for pos < len(data) {
			loc := m.whole.FindIndex(data[pos:])
			if loc == nil {
				return
			}
			start := pos + loc[0]
			lineStart := pos
			lineNo += bytes.Count(data[pos:start], []byte{'\n'})
			if i := bytes.LastIndexByte(data[pos:start], '\n'); i >= 0 {
				lineStart = pos + i + 1
			}
			if lineStart == len(data) {
				// An empty match after the final newline is not a line.
				return
			}
			line, next := lineAt(data, lineStart)
			if !m.line.Match(line) {
				pos = lineStart
				break
			}
			if !fn(lineNo, line) {
				return
			}
			pos, lineNo = next, lineNo+1
		}
		if pos >= len(data) {
			return
		}
	}
	for pos < len(data) {
		line, next := lineAt(data, pos)
		if m.line.Match(line) && !fn(lineNo, line) {
			return
		}
		pos, lineNo = next, lineNo+1
	}
}

// lineAt returns the line starting at start, without its newline, and the
// offset of the line after it.
func lineAt(data []byte, start int) ([]byte, int) {
	if i := bytes.IndexByte(data[start:], '\n'); i >= 0 {
		return data[start : start+i], start + i + 1
	}
	return data[start:], len(data)
}

// clipLine prepares a matched line for display: a trailing carriage return
// is dropped and the line is cut on a rune boundary.
func clipLine(line []byte, max int) string {
	line = bytes.TrimSuffix(line, []byte{'\r'})
	if len(line) <= max {
		return string(line)
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(line[cut]) {
		cut--
	}
	return string(line[:cut]) + " …[line truncated]"
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], "…")
	}
	return s
}
