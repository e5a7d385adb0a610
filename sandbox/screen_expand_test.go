package sandbox

import (
	"slices"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// This file holds the screen to what it did with mvdan.cc/sh/v3/expand.
// The expand package is linked only here, never into the binary.

// tildeNeutralEnv is an empty environment in which "~name" resolves to
// itself: expand would otherwise ask os/user, making its answer depend on
// the machine's accounts. The screen keeps a leading tilde as written and
// judges such words from their raw text.
type tildeNeutralEnv struct{}

func (tildeNeutralEnv) Get(name string) expand.Variable {
	if user, ok := strings.CutPrefix(name, "HOME "); ok {
		return expand.Variable{Set: true, Kind: expand.String, Str: "~" + user}
	}
	return expand.Variable{}
}

func (tildeNeutralEnv) Each(func(string, expand.Variable) bool) {}

// expandLiteral is the screen's former literal.
func expandLiteral(word *syntax.Word) (string, error) {
	return expand.Literal(&expand.Config{Env: tildeNeutralEnv{}, NoUnset: true}, word)
}

// expandFields is the screen's former fields, built on expand.BracesSeq
// and expand.Literal; apart from those two calls it is the same code.
func expandFields(w *walker, word *syntax.Word) ([]field, error) {
	raw := w.rawOf(word)
	cp := &syntax.Word{Parts: slices.Clone(word.Parts)}
	braced := syntax.SplitBraces(cp)
	var out []field
	words := []*syntax.Word{cp}
	if braced {
		words = nil
		for bw, err := range expand.BracesSeq(nil, cp) {
			if err != nil {
				return nil, refuse("brace expansion in %q makes too many words", raw)
			}
			words = append(words, bw)
			if len(words) > maxFields {
				return nil, refuse("brace expansion in %q makes more than %d words", raw, maxFields)
			}
		}
	}
	for _, bw := range words {
		f := field{raw: raw, braced: braced, home: tildeHome(bw)}
		for i, p := range bw.Parts {
			switch p := p.(type) {
			case *syntax.Lit:
				if strings.Contains(p.Value, "\\") {
					f.quoted = true
				}
				if strings.ContainsAny(p.Value, "*?[") {
					f.glob = true
				}
				if i == 0 && strings.HasPrefix(p.Value, "~") {
					f.glob = true
				}
			case *syntax.SglQuoted:
				f.quoted = true
			case *syntax.DblQuoted:
				f.quoted = true
				if p.Dollar || !allLit(p.Parts) {
					f.dynamic = true
				}
			default:
				f.dynamic = true
			}
			if f.dynamic {
				pre := &syntax.Word{Parts: bw.Parts[:i]}
				f.val, _ = expandLiteral(pre)
				break
			}
		}
		if !f.dynamic {
			v, err := expandLiteral(bw)
			if err != nil {
				f.dynamic = true
			} else {
				f.val = v
			}
		}
		out = append(out, f)
	}
	return out, nil
}

// failClosedOK reports whether raw holds a $'...' or $"..." string, the
// only places the new decoder may refuse (mark computed) a word expand
// decoded: \cX, octal past \377 and \u past ASCII, where bash differs
// from expand or depends on the locale, and locale translation.
func failClosedOK(raw string) bool {
	return strings.Contains(raw, "$'") || strings.Contains(raw, `$"`)
}

// compareWords parses src as the arguments of one command and requires
// fields to give what expandFields gave for every word, or a computed
// field where failClosedOK allows it. It returns how many fields the new
// code refused that expand decoded.
func compareWords(t *testing.T, src string) (refused int) {
	t.Helper()
	line := ": " + src
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	if err != nil {
		return 0
	}
	w := &walker{src: line}
	syntax.Walk(file, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok {
			return true
		}
		for _, word := range call.Args {
			want, wantErr := expandFields(w, word)
			got, gotErr := w.fields(word)
			if (wantErr != nil) != (gotErr != nil) {
				t.Errorf("%q: word %q: error %v, expand gave %v", src, w.rawOf(word), gotErr, wantErr)
				continue
			}
			if len(got) != len(want) {
				t.Errorf("%q: word %q: %d fields, expand gave %d", src, w.rawOf(word), len(got), len(want))
				continue
			}
			for i := range got {
				g, x := got[i], want[i]
				if g == x {
					continue
				}
				if g.dynamic && failClosedOK(x.raw) &&
					g.raw == x.raw && g.quoted == x.quoted && g.braced == x.braced && g.glob == x.glob {
					refused++
					continue
				}
				t.Errorf("%q: word %q field %d:\n got  %+v\n want %+v", src, w.rawOf(word), i, g, x)
			}
		}
		return true
	})
	return refused
}

// expandAtoms are word pieces: quoting, escapes, braces, sequences,
// nesting, tildes, unicode and expansions the screen leaves computed.
var expandAtoms = []string{
	``, `a`, `-rf`, `/etc/passwd`, `*.go`, `x?y`, `[ab]`, `héllo`, `日本`,
	`a\ b`, `\$HOME`, `\\`, `\'`, `\"`, `\{a,b\}`,
	`''`, `'a b'`, `'\n'`, `'$x'`, `'{a,b}'`,
	`""`, `"a b"`, `"\$x"`, `"\""`, `"\\"`, "\"\\`\"", `"\q"`, `"a\\b\c"`, `"日本\$"`, `"{a,b}"`,
	`$'a\nb'`, `$'\t\v\f\r\a\b\e\E'`, `$'\x41\x4g\x'`, `$'\0101\101\7'`, `$'\400'`, `$'\777'`,
	`$'\u00e9'`, `$'\u41'`, `$'\U0001F600'`, `$'\uD800'`, `$'\cA'`, `$'\q\''`, `$'a\x00b'`, `$'\\'`, `$'\"\?'`, `$'%s%%'`,
	`$"x"`, `$x`, `${x:-a}`, `$(id)`, "`id`", `$((1+2))`, `<(ls)`, `@(a|b)`,
	`~`, `~/x`, `~root`, `~root/.ssh`, `~nosuchuser/x`, `a=~/x`, `~'x'`,
	`{a,b}`, `{a,b,c}`, `{,}`, `{a}`, `{}`, `{a,}`, `{,a}`, `x{a,b}y`, `{a,b{c,d}}`, `{{a,b},{c,d}}`, `{a,b}{c,d}`,
	`{a..c}`, `{c..a}`, `{a..e..2}`, `{a..Z}`, `{A..z..10}`, `{1..3}`, `{3..1}`, `{1..10..2}`, `{10..1..-3}`,
	`{-3..3}`, `{01..10}`, `{-01..2}`, `{1..3..0}`, `{a..}`, `{..a}`, `{1..a}`, `{1..2..3..4}`, `{1..3..x}`,
	`{a..b..c}`, `{1..600}`, `{1..100}{1..100}`, `{9223372036854775806..9223372036854775807}`, `{1.5..3}`,
	`{'a','b'}`, `{"a b",c}`, `{$x,y}`, `{a,$(id)}`, `{$'\n',x}`, `'{'a,b'}'`, `{a,'b,c'}`, `{α,β}`, `{α..ω}`,
}

// TestFieldsMatchExpand runs every atom and every pair of atoms joined
// into one word (and two words) through both decoders.
func TestFieldsMatchExpand(t *testing.T) {
	words, refused := 0, 0
	for _, a := range expandAtoms {
		refused += compareWords(t, a)
		words++
		for _, b := range expandAtoms {
			refused += compareWords(t, a+b)
			refused += compareWords(t, a+" "+b)
			words += 2
		}
	}
	t.Logf("%d inputs; %d fields refused where expand decoded them", words, refused)
	if refused == 0 {
		t.Error("no field was refused: the fail-closed cases were not exercised")
	}
}

// TestLiteralFailsClosed pins the cases where the screen's decoder marks
// a word computed instead of guessing: bash reads them differently from
// expand, or by the locale.
func TestLiteralFailsClosed(t *testing.T) {
	for _, src := range []string{`$'\cA'`, `$'\400'`, `$'\777'`, `$'\u00e9'`, `$'\U0001F600'`, `$"x"`, `"$x"`, `$x`, `a$(id)`} {
		line := ": " + src
		file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		word := file.Stmts[0].Cmd.(*syntax.CallExpr).Args[1]
		if v, err := literal(word); err == nil {
			t.Errorf("literal(%s) = %q, want an error", src, v)
		}
		fs, err := (&walker{src: line}).fields(word)
		if err != nil || len(fs) != 1 || !fs[0].dynamic {
			t.Errorf("fields(%s) = %+v, %v; want one computed field", src, fs, err)
		}
	}
	// And the decoded ones bash agrees on.
	for src, want := range map[string]string{
		`$'\x41\101\n'`: "AA\n", `$'\u0041'`: "A", `$'a\x00b'`: "a", `"a\"\$\q"`: `a"$\q`, `a\ b`: `a\ b`, `~root/x`: "~root/x",
	} {
		file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(": "+src), "")
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		if got, err := literal(file.Stmts[0].Cmd.(*syntax.CallExpr).Args[1]); err != nil || got != want {
			t.Errorf("literal(%s) = %q, %v; want %q", src, got, err, want)
		}
	}
}

// FuzzFieldsMatchExpand compares the two decoders on arbitrary command
// lines.
func FuzzFieldsMatchExpand(f *testing.F) {
	for _, a := range expandAtoms {
		f.Add(a)
	}
	f.Add(`cat {a,b{c,d}}/$'\x2e'"x" ~/f {1..3..0}`)
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 256 {
			return
		}
		compareWords(t, src)
	})
}

// TestBracedTildeRefused: bash expands braces before tildes, so a home
// directory can hide in a brace alternative. expand left "~" as written
// (no HOME in its environment) and the screen took "~/.ssh/id_rsa" for a
// path in the workspace; with "~root" it asked os/user.
func TestBracedTildeRefused(t *testing.T) {
	s, err := NewScreener(&ScreenOptions{Mode: ScreenAllowlist, Workspace: "/ws"})
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{
		"cat {~/.ssh/id_rsa,x}", "cat {~root/.ssh/id_rsa,x}", "cat {,~/.ssh/id_rsa}",
		"cat {a,b}{=,x}~/.ssh/id_rsa", "cat a{:,x}~/.ssh/id_rsa", "cat {x,~}", "wc -l {~nosuch/f,x}",
	} {
		if err := s.Check(cmd, "/ws"); err == nil {
			t.Errorf("Check(%q) admitted a home directory hidden in braces", cmd)
		}
	}
	// A computed word that starts at a home directory was admitted in
	// deny list mode, where computed paths are read.
	d, err := NewScreener(&ScreenOptions{Mode: ScreenDenylist, Workspace: "/ws"})
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"cat ~/$f", "cat {~,x}/$f"} {
		if err := d.Check(cmd, "/ws"); err == nil {
			t.Errorf("deny list Check(%q) admitted a computed path under a home directory", cmd)
		}
	}
	for _, cmd := range []string{"cat {a,b}.txt", "cat '{~,x}'", `cat \~/x`, "cat x{,'~'/f}", "cat x{,~/f}"} {
		if err := s.Check(cmd, "/ws"); err != nil {
			t.Errorf("Check(%q) = %v, want admitted", cmd, err)
		}
	}
}
