package sandbox

import (
	"bufio"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// FuzzScreenerCheck: no command line, however malformed, panics the
// screen, and whatever allowlist mode admits parses as shell in which every
// command is a plainly spelled allowlisted program, nothing runs in the
// background and no process substitution or function appears.
func FuzzScreenerCheck(f *testing.F) {
	if fh, err := os.Open("testdata/shell_corpus.tsv"); err == nil {
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			cols := strings.Split(sc.Text(), "\t")
			if len(cols) == 4 {
				if c, err := strconv.Unquote(cols[2]); err == nil {
					f.Add(c)
				}
			}
		}
		fh.Close()
	}
	deny, _ := NewScreener(&ScreenOptions{Mode: ScreenDenylist, Workspace: "/ws"})
	allow, _ := NewScreener(&ScreenOptions{Mode: ScreenAllowlist, Workspace: "/ws"})
	f.Fuzz(func(t *testing.T, cmd string) {
		deny.Check(cmd, "/ws")
		if allow.Check(cmd, "/ws") == nil {
			if msg := allowlistViolation(cmd); msg != "" {
				t.Fatalf("allowlist admitted %q: %s", cmd, msg)
			}
		}
	})
}

// allowlistViolation re-parses a command allowlist mode admitted and says
// what in it the allowlist should have refused, or "".
func allowlistViolation(cmd string) string {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
	if err != nil {
		return "it does not parse: " + err.Error()
	}
	msg := ""
	syntax.Walk(f, func(n syntax.Node) bool {
		if msg != "" {
			return false
		}
		switch n := n.(type) {
		case *syntax.Stmt:
			if n.Background || n.Coprocess {
				msg = "a background command"
			}
		case *syntax.ProcSubst:
			msg = "a process substitution"
		case *syntax.FuncDecl:
			msg = "a function definition"
		case *syntax.CallExpr:
			if len(n.Assigns) > 0 {
				msg = "a variable assignment"
			}
			if len(n.Args) == 0 {
				return true
			}
			if len(n.Args[0].Parts) != 1 {
				msg = "a program name in several parts"
				return false
			}
			lit, ok := n.Args[0].Parts[0].(*syntax.Lit)
			if !ok {
				msg = "a program name that is not a plain word"
				return false
			}
			if !slices.Contains(DefaultAllow, path.Base(lit.Value)) {
				msg = "the program " + lit.Value
			}
		}
		return true
	})
	return msg
}
