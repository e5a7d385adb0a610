package sandbox

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
	"unicode"

	"mvdan.cc/sh/v3/syntax"
)

// maxDepth bounds how deeply command substitutions and sh -c strings may
// nest before the screen gives up and refuses.
const maxDepth = 6

// maxFields bounds the words brace expansion may produce from one command.
const maxFields = 512

func refuse(format string, args ...any) error { return fmt.Errorf(format, args...) }

// check parses command and judges every command in it.
func (s *Screener) check(command, dir string, depth int) error {
	if depth > maxDepth {
		return refuse("commands are nested too deeply")
	}
	if strings.TrimSpace(command) == "" {
		return refuse("the command is empty")
	}
	for _, r := range command {
		switch {
		case r == 0:
			return refuse("the command contains a NUL byte")
		case r == '\t' || r == '\n' || r == '\r':
		case unicode.IsControl(r):
			return refuse("the command contains the control character %U", r)
		case unicode.Is(unicode.Cf, r):
			// Bidirectional overrides and zero-width characters make the
			// command a human approves look different from what runs.
			return refuse("the command contains the invisible formatting character %U", r)
		}
	}
	if strings.Contains(command, "/dev/tcp/") || strings.Contains(command, "/dev/udp/") {
		return refuse("network redirections through /dev/tcp or /dev/udp are not allowed")
	}
	if s.mode == ScreenAllowlist && strings.Contains(command, "\r") {
		// bash treats a carriage return as part of a word, most readers of
		// the command as a line break: the two disagree on what runs.
		return refuse("the command contains a carriage return")
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil {
		var pe syntax.ParseError
		if errors.As(err, &pe) {
			return refuse("the command does not parse as shell: %s", pe.Text)
		}
		return refuse("the command does not parse as shell (an unclosed quote, substitution or bracket?)")
	}
	root := s.workspace
	if root == "" {
		root = dir
	}
	w := &walker{s: s, src: command, dir: dir, root: root, depth: depth}
	return w.stmts(f.Stmts, false)
}

// walker judges the commands of one parsed command line.
type walker struct {
	s     *Screener
	src   string
	dir   string // the working directory, as cd changes it
	root  string // the workspace
	depth int
	// lost is set once a cd went somewhere not known before the command
	// runs: relative paths after it cannot be judged.
	lost bool
}

func (w *walker) allowlist() bool { return w.s.mode == ScreenAllowlist }

func (w *walker) stmts(list []*syntax.Stmt, stdin bool) error {
	for _, st := range list {
		if err := w.stmt(st, stdin); err != nil {
			return err
		}
	}
	return nil
}

func (w *walker) stmt(st *syntax.Stmt, stdin bool) error {
	if st.Coprocess || st.Disown {
		return refuse("coprocesses and disowned jobs are not allowed")
	}
	if st.Background && w.allowlist() {
		return refuse("running a command in the background (&) lets it outlive the call; allowlist mode runs commands in the foreground only")
	}
	hereInput := false
	for _, r := range st.Redirs {
		if err := w.redirect(r); err != nil {
			return err
		}
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			hereInput = true
		}
	}
	return w.command(st.Cmd, stdin || hereInput)
}

func (w *walker) command(c syntax.Command, stdin bool) error {
	switch c := c.(type) {
	case nil:
		return nil
	case *syntax.CallExpr:
		return w.call(c, stdin)
	case *syntax.BinaryCmd:
		if err := w.stmt(c.X, stdin); err != nil {
			return err
		}
		if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
			return w.stmt(c.Y, true)
		}
		return w.stmt(c.Y, stdin)
	case *syntax.Block:
		return w.stmts(c.Stmts, stdin)
	case *syntax.Subshell:
		return w.stmts(c.Stmts, stdin)
	case *syntax.IfClause:
		for ic := c; ic != nil; ic = ic.Else {
			if err := w.stmts(ic.Cond, stdin); err != nil {
				return err
			}
			if err := w.stmts(ic.Then, stdin); err != nil {
				return err
			}
		}
		return nil
	case *syntax.WhileClause:
		if err := w.stmts(c.Cond, stdin); err != nil {
			return err
		}
		return w.stmts(c.Do, stdin)
	case *syntax.ForClause:
		switch l := c.Loop.(type) {
		case *syntax.WordIter:
			if err := w.assignName(l.Name.Value); err != nil {
				return err
			}
			for _, it := range l.Items {
				if err := w.substs(it); err != nil {
					return err
				}
			}
		case *syntax.CStyleLoop:
			if w.allowlist() {
				return refuse("arithmetic for loops are not allowed in allowlist mode")
			}
			if err := w.substs(l); err != nil {
				return err
			}
		}
		return w.stmts(c.Do, stdin)
	case *syntax.CaseClause:
		if err := w.substs(c.Word); err != nil {
			return err
		}
		for _, it := range c.Items {
			for _, p := range it.Patterns {
				if err := w.substs(p); err != nil {
					return err
				}
			}
			if err := w.stmts(it.Stmts, stdin); err != nil {
				return err
			}
		}
		return nil
	case *syntax.FuncDecl:
		return refuse("defining shell functions is not allowed")
	case *syntax.TimeClause:
		if c.Stmt == nil {
			return nil
		}
		return w.stmt(c.Stmt, stdin)
	case *syntax.ArithmCmd, *syntax.LetClause, *syntax.TestClause:
		if w.allowlist() {
			// Arithmetic evaluates variable values as expressions, and an
			// array subscript in one runs command substitutions.
			return refuse("arithmetic and [[ ]] tests are not allowed in allowlist mode; use the programs directly")
		}
		return w.substs(c)
	case *syntax.DeclClause:
		if w.allowlist() {
			return refuse("%s sets variables, which allowlist mode does not allow", c.Variant.Value)
		}
		for _, a := range c.Args {
			if a.Name != nil {
				if err := w.assignName(a.Name.Value); err != nil {
					return err
				}
			}
			if err := w.substs(a); err != nil {
				return err
			}
		}
		return nil
	case *syntax.CoprocClause:
		return refuse("coprocesses are not allowed")
	default:
		return refuse("the shell construct %T is not supported by the screen", c)
	}
}

// assignName refuses setting a variable that changes what commands run.
func (w *walker) assignName(name string) error {
	if slices.Contains(dangerousAssign, name) {
		return refuse("setting %s changes what a command runs or loads", name)
	}
	return nil
}

// substs screens every command substitution inside node and refuses a
// process substitution.
func (w *walker) substs(node syntax.Node) error {
	if node == nil {
		return nil
	}
	var err error
	syntax.Walk(node, func(n syntax.Node) bool {
		if err != nil {
			return false
		}
		switch n := n.(type) {
		case *syntax.CmdSubst:
			if w.depth+1 > maxDepth {
				err = refuse("command substitutions are nested too deeply")
				return false
			}
			sub := &walker{s: w.s, src: w.src, dir: w.dir, root: w.root, depth: w.depth + 1, lost: w.lost}
			if e := sub.stmts(n.Stmts, false); e != nil {
				err = fmt.Errorf("inside a command substitution: %w", e)
			}
			return false
		case *syntax.ProcSubst:
			// >(...) hands the command a /dev/fd path whose writes run a
			// second command; <(...) is its reading twin.
			err = refuse("process substitution <(...) and >(...) is not allowed; write to a file in the workspace instead")
			return false
		case *syntax.ParamExp:
			// ${NAME:=value} sets NAME as a side effect.
			if n.Exp != nil && (n.Exp.Op == syntax.AssignUnset || n.Exp.Op == syntax.AssignUnsetOrNull) && n.Param != nil {
				if w.allowlist() {
					err = refuse("${%s:=...} sets a variable, which allowlist mode does not allow", n.Param.Value)
				} else {
					err = w.assignName(n.Param.Value)
				}
				if err != nil {
					return false
				}
			}
		}
		return true
	})
	return err
}

func (w *walker) call(c *syntax.CallExpr, stdin bool) error {
	for _, a := range c.Assigns {
		if err := w.substs(a); err != nil {
			return err
		}
		name := ""
		if a.Name != nil {
			name = a.Name.Value
		}
		if w.allowlist() {
			return refuse("allowlist mode does not run commands with variable assignments (%s=...)", name)
		}
		if err := w.assignName(name); err != nil {
			return err
		}
	}
	if len(c.Args) == 0 {
		return nil
	}
	var argv []field
	for _, a := range c.Args {
		if err := w.substs(a); err != nil {
			return err
		}
		fs, err := w.fields(a)
		if err != nil {
			return err
		}
		argv = append(argv, fs...)
		if len(argv) > maxFields {
			return refuse("the command expands to more than %d words", maxFields)
		}
	}
	return w.argv(argv, stdin)
}

// field is one word of a command after the expansions that can be done
// before it runs: quote removal, escapes, ANSI-C quoting and brace
// expansion.
type field struct {
	// val is the word's value; for a dynamic word, the static text before
	// the first expansion.
	val string
	// raw is the word as written.
	raw string
	// dynamic marks a word whose value is computed when the command runs.
	dynamic bool
	// quoted marks a word written with quotes or backslashes.
	quoted bool
	// glob marks a word with unquoted wildcard characters.
	glob bool
	// braced marks a word produced by brace expansion.
	braced bool
	// home marks a word bash may start at a home directory: after brace
	// expansion, its unquoted text starts with "~" or holds "=~" or ":~".
	home bool
}

func (w *walker) rawOf(n syntax.Node) string {
	a, b := int(n.Pos().Offset()), int(n.End().Offset())
	if a < 0 || b > len(w.src) || a > b {
		return ""
	}
	return w.src[a:b]
}

// fields expands word as far as can be known now.
func (w *walker) fields(word *syntax.Word) ([]field, error) {
	raw := w.rawOf(word)
	cp := &syntax.Word{Parts: slices.Clone(word.Parts)}
	braced := syntax.SplitBraces(cp)
	var out []field
	words := []*syntax.Word{cp}
	if braced {
		words = nil
		more, err := braceWords(cp, func(bw *syntax.Word) bool {
			words = append(words, bw)
			return len(words) <= maxFields
		})
		if err != nil {
			return nil, refuse("brace expansion in %q cannot be read", raw)
		}
		if !more {
			return nil, refuse("brace expansion in %q makes more than %d words", raw, maxFields)
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
					f.glob = true // tilde: treated as unknown like a glob, refused below
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
				// The static text before the first expansion.
				pre := &syntax.Word{Parts: bw.Parts[:i]}
				f.val, _ = literal(pre)
				break
			}
		}
		if !f.dynamic {
			v, err := literal(bw)
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

// tildeHome reports whether a word, after brace expansion, has a tilde
// where bash would expand it: at the start of its unquoted text, or after
// an unquoted "=" or ":". Braces are expanded before tildes, so
// "{~,x}/.ssh" reaches the home directory though no "~" leads the word
// as written.
func tildeHome(word *syntax.Word) bool {
	var sb strings.Builder
	for _, p := range word.Parts {
		if lit, ok := p.(*syntax.Lit); ok {
			sb.WriteString(lit.Value)
		} else {
			sb.WriteByte(0) // quoted or computed text ends the run
		}
	}
	s := sb.String()
	return strings.HasPrefix(s, "~") || strings.Contains(s, "=~") || strings.Contains(s, ":~")
}

func allLit(parts []syntax.WordPart) bool {
	for _, p := range parts {
		if _, ok := p.(*syntax.Lit); !ok {
			return false
		}
	}
	return true
}

// tilde reports whether an unquoted word starts with a tilde or holds one
// after "=" or ":", where bash expands it to a home directory.
func (f field) tilde() bool {
	if f.home {
		return true
	}
	if f.dynamic || !strings.Contains(f.raw, "~") {
		return false
	}
	return strings.HasPrefix(f.raw, "~") || strings.Contains(f.raw, "=~") || strings.Contains(f.raw, ":~")
}

// argv judges one simple command after expansion.
func (w *walker) argv(argv []field, stdin bool) error {
	via := "" // the wrapper (env, nice, ...) running argv, if any
	for len(argv) > 0 {
		prog, err := w.programName(argv[0])
		if err != nil {
			return err
		}
		if w.s.deny[prog] || strings.HasPrefix(prog, "mkfs.") {
			return refuse("%q is on the deny list", prog)
		}
		if w.allowlist() && !w.s.allow[prog] {
			return &NotAllowedError{Program: prog, Via: via}
		}
		args := argv[1:]
		switch prog {
		case "cd", "pushd", "popd":
			return w.chdir(prog, args)
		}
		if slices.Contains(shells, prog) {
			return w.shell(prog, args, stdin)
		}
		if slices.Contains(interpreters, prog) || strings.HasPrefix(prog, "python3.") {
			if stdin && !hasOperand(args) {
				return refuse("piping code into %s is not allowed; write a script file in the workspace and run it", prog)
			}
		}
		inner, isWrapper, err := w.unwrap(prog, args)
		if err != nil {
			return err
		}
		if isWrapper {
			if len(inner) == 0 {
				return nil
			}
			argv, via = inner, prog
			continue
		}
		if spec := toolSpecs()[prog]; spec != nil {
			return w.tool(prog, spec, args)
		}
		return w.generic(prog, args)
	}
	return nil
}

// programName checks the command word and returns the program's base name.
func (w *walker) programName(f field) (string, error) {
	if f.dynamic {
		return "", refuse("the program name %q is computed when the command runs; spell it out", f.raw)
	}
	name := f.val
	if name == "" {
		// Checked first: path.Base("") is ".", which would be refused
		// as a program the command never named.
		return "", refuse("the program name is empty")
	}
	base := path.Base(name)
	if w.s.deny[base] {
		return "", refuse("%q is on the deny list", base)
	}
	if f.quoted {
		return "", refuse("the program name %q uses quotes or backslashes; spell it plainly", f.raw)
	}
	if f.braced {
		return "", refuse("the program name %q comes from brace expansion; spell it out", f.raw)
	}
	for _, r := range name {
		if r > unicode.MaxASCII {
			return "", refuse("the program name %q contains non-ASCII characters", name)
		}
	}
	if name != "[" && (f.glob || strings.ContainsAny(name, "*?[]{}~")) {
		// Globs turn s?do into a program name no list ever saw.
		return "", refuse("the program name %q uses wildcards or braces; spell it out", f.raw)
	}
	if strings.Contains(name, "/") {
		if w.allowlist() && !slices.Contains(binDirs, path.Dir(name)) {
			return "", refuse("%q is run by path; allowlist mode runs programs by name only", name)
		}
		name = base
	}
	return name, nil
}

// hasOperand reports whether args has a word that is not an option.
func hasOperand(args []field) bool {
	for _, a := range args {
		if !strings.HasPrefix(a.val, "-") || a.val == "-" {
			return true
		}
	}
	return false
}

// shell judges a shell invocation. A shell given a static string with -c
// in allowlist mode has that string screened as a command line of its
// own; in deny list mode any -c is refused, as is code fed on standard
// input.
func (w *walker) shell(prog string, args []field, stdin bool) error {
	cmdMode := false
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if a.dynamic {
			return refuse("%s's argument %q is computed when the command runs; spell it out", prog, a.raw)
		}
		t := a.val
		if t == "--" || t == "-" {
			i++
			break
		}
		if !strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "+") {
			break
		}
		if strings.HasPrefix(t, "--") {
			if strings.HasPrefix(t, "--init") || strings.HasPrefix(t, "--rc") {
				return refuse("%s %s runs a file of shell code before anything else", prog, t)
			}
			continue
		}
		if strings.ContainsAny(t[1:], "is") {
			return refuse("%s %s runs standard input or an interactive shell; run the command itself", prog, t)
		}
		if strings.Contains(t[1:], "o") || strings.Contains(t[1:], "O") {
			i++ // the option name
		}
		if strings.Contains(t[1:], "c") {
			cmdMode = true
		}
	}
	rest := args[min(i, len(args)):]
	if cmdMode {
		if !w.allowlist() {
			return refuse("%s -c runs a string as shell code; run the command itself", prog)
		}
		if len(rest) == 0 {
			return refuse("%s -c without a command string", prog)
		}
		if w.lost {
			return refuse("%s -c after a cd to a directory not known before the command runs", prog)
		}
		if err := w.s.check(rest[0].val, w.dir, w.depth+1); err != nil {
			return fmt.Errorf("inside %s -c: %w", prog, err)
		}
		for _, a := range rest[1:] {
			if a.dynamic {
				return refuse("%s -c argument %q is computed when the command runs", prog, a.raw)
			}
		}
		return nil
	}
	if len(rest) == 0 {
		if stdin {
			return refuse("piping or redirecting text into %s runs it as shell code", prog)
		}
		return refuse("%s without a script file starts an interactive shell", prog)
	}
	if w.allowlist() {
		return refuse("%s %s runs a script the screen cannot read; run its commands directly or use the sandbox", prog, rest[0].val)
	}
	return nil
}

// unwrap recognises programs that run another program given as their
// arguments, and returns the words of that inner command.
func (w *walker) unwrap(prog string, args []field) (inner []field, ok bool, err error) {
	for _, a := range args {
		if a.dynamic && w.allowlist() {
			if slices.Contains(wrappers, prog) {
				return nil, false, refuse("%s's argument %q is computed when the command runs; spell it out", prog, a.raw)
			}
		}
	}
	skipOpts := func(withArg string) []field {
		i := 0
		for i < len(args) {
			t := args[i].val
			if t == "--" {
				i++
				break
			}
			if !strings.HasPrefix(t, "-") || t == "-" {
				break
			}
			if len(t) == 2 && strings.Contains(withArg, t[1:]) {
				i++
			}
			i++
		}
		return args[min(i, len(args)):]
	}
	switch prog {
	case "env":
		i := 0
		for ; i < len(args); i++ {
			t := args[i].val
			if t == "--" {
				i++
				break
			}
			if t == "-" || !strings.HasPrefix(t, "-") {
				break
			}
			if strings.HasPrefix(t, "--") {
				name, _, hasEq := strings.Cut(t[2:], "=")
				o, err := envLong().lookup(name)
				if err != nil {
					return nil, false, refuse("env --%s: %s", name, err.Error())
				}
				switch o.name {
				case "split-string":
					return nil, false, refuse("env -S splits a string into a command line; run the command directly")
				case "chdir":
					if w.allowlist() {
						return nil, false, refuse("env --chdir moves the command out of the working directory; allowlist mode does not allow it")
					}
				}
				if o.arg == argRequired && !hasEq {
					i++
				}
				continue
			}
			for j := 1; j < len(t); j++ {
				switch t[j] {
				case 'S':
					return nil, false, refuse("env -S splits a string into a command line; run the command directly")
				case 'C':
					if w.allowlist() {
						return nil, false, refuse("env -C moves the command out of the working directory; allowlist mode does not allow it")
					}
				}
				if t[j] == 'u' || t[j] == 'C' {
					if j == len(t)-1 {
						i++
					}
					break
				}
			}
		}
		rest := args[min(i, len(args)):]
		for len(rest) > 0 && isAssignment(rest[0]) {
			name, _, _ := strings.Cut(rest[0].val, "=")
			if w.allowlist() {
				return nil, false, refuse("allowlist mode does not run commands with variable assignments (%s=...)", name)
			}
			if err := w.assignName(name); err != nil {
				return nil, false, err
			}
			rest = rest[1:]
		}
		return rest, true, nil
	case "timeout":
		rest := skipOpts("sk")
		if len(rest) > 0 {
			rest = rest[1:] // the duration
		}
		return rest, true, nil
	case "nice":
		return skipOpts("n"), true, nil
	case "ionice":
		return skipOpts("cnpP"), true, nil
	case "stdbuf":
		return skipOpts("ioe"), true, nil
	case "nohup", "setsid", "time", "builtin", "unbuffer", "chronic", "caffeinate", "taskset", "flock", "busybox", "toybox", "catchsegv":
		rest := skipOpts("")
		if (prog == "taskset" || prog == "flock") && len(rest) > 0 {
			rest = rest[1:]
		}
		return rest, true, nil
	case "exec":
		return skipOpts("a"), true, nil
	case "command":
		for _, a := range args {
			if a.val == "-v" || a.val == "-V" {
				return nil, false, nil
			}
		}
		return skipOpts(""), true, nil
	case "xargs":
		if w.allowlist() {
			// Name a program off the allowlist first: that is the more
			// useful refusal.
			if rest := skipOpts("nPdaLsEe"); len(rest) > 0 {
				if p, err := w.programName(rest[0]); err == nil && !w.s.allow[p] {
					return nil, false, &NotAllowedError{Program: p, Via: prog}
				}
			}
			return nil, false, refuse("xargs adds words from its input to the command line, which the screen cannot see; run the command directly")
		}
		for _, a := range args {
			if strings.HasPrefix(a.val, "-") && (strings.Contains(a.val, "I") || strings.Contains(a.val, "i") || strings.HasPrefix(a.val, "--replace")) {
				// With -I the input lands inside the command line, which can
				// carry anything.
				return nil, false, refuse("xargs -I builds a command line from its input; run the commands directly")
			}
		}
		rest := skipOpts("nPdaLsEe")
		if len(rest) == 0 {
			return nil, false, nil
		}
		return rest, true, nil
	}
	return nil, false, nil
}

// wrappers names the programs [walker.unwrap] sees through.
var wrappers = []string{
	"env", "timeout", "nice", "ionice", "stdbuf", "nohup", "setsid", "time", "builtin", "unbuffer", "chronic",
	"caffeinate", "taskset", "flock", "busybox", "toybox", "catchsegv", "exec", "command", "xargs",
}

var (
	envLongOnce sync.Once
	envLongVal  longOpts
)

func envLong() longOpts {
	envLongOnce.Do(func() { envLongVal = buildEnvLong() })
	return envLongVal
}

func buildEnvLong() longOpts {
	return longTable("ignore-environment null unset= chdir= split-string= block-signal? default-signal? ignore-signal? list-signal-handling debug help version")
}

func isAssignment(f field) bool {
	if f.dynamic {
		return false
	}
	name, _, ok := strings.Cut(f.val, "=")
	if !ok || name == "" || !isNameStart(rune(name[0])) {
		return false
	}
	for _, r := range name {
		if !isNameChar(r) {
			return false
		}
	}
	return true
}

func isNameStart(r rune) bool { return r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') }
func isNameChar(r rune) bool  { return isNameStart(r) || (r >= '0' && r <= '9') }

// redirect judges one redirection: its target is a path read or written.
func (w *walker) redirect(r *syntax.Redirect) error {
	if err := w.substs(r.Word); err != nil {
		return err
	}
	if r.Hdoc != nil {
		// An unquoted here-document expands command substitutions.
		if err := w.substs(r.Hdoc); err != nil {
			return err
		}
	}
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return nil
	}
	fs, err := w.fields(r.Word)
	if err != nil {
		return err
	}
	if len(fs) != 1 {
		return refuse("the redirection target %q expands to several words", w.rawOf(r.Word))
	}
	t := fs[0]
	what := "redirection to " + quote(t.raw)
	switch r.Op {
	case syntax.DplIn, syntax.DplOut:
		if !t.dynamic && fdDup(t.val) {
			return nil
		}
		if r.Op == syntax.DplIn {
			return w.readPath(t, what)
		}
		return w.writePath(t, what)
	case syntax.RdrIn:
		return w.readPath(t, what)
	}
	return w.writePath(t, what)
}

// fdDup reports whether the target of a >&/<& names a descriptor (3),
// moves one (3-) or closes one (-).
func fdDup(t string) bool {
	if t == "-" {
		return true
	}
	t = strings.TrimSuffix(t, "-")
	return t != "" && strings.Trim(t, "0123456789") == ""
}

func quote(s string) string { return fmt.Sprintf("%q", s) }

// isStdio reports whether abs (cleaned) is a device path a command may
// always read or write: /dev/stdin, /dev/stdout, /dev/stderr, /dev/fd/N,
// /proc/self/fd/N. They name the command's own streams, not a file.
func isStdio(abs string) bool {
	switch abs {
	case "/dev/stdin", "/dev/stdout", "/dev/stderr":
		return true
	}
	for _, pre := range []string{"/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/"} {
		if n, ok := strings.CutPrefix(abs, pre); ok {
			return n != "" && strings.Trim(n, "0123456789") == ""
		}
	}
	return false
}

// readDevices may be read in any mode.
var readDevices = []string{"/dev/null", "/dev/zero", "/dev/random", "/dev/urandom"}

// locate returns the absolute path p names from the working directory,
// cleaned lexically: /dev/fd/../../x is /x, as the kernel resolves it.
// It returns "" for a relative path once the working directory is lost.
func (w *walker) locate(p string) string {
	if !path.IsAbs(p) {
		if w.lost {
			return ""
		}
		dir := w.dir
		if dir == "" {
			dir = w.root
		}
		if dir == "" {
			dir = "/nonexistent-workspace"
		}
		p = path.Join(dir, p)
	}
	return path.Clean(p)
}

// inside reports whether the cleaned absolute path abs is in the workspace.
func (w *walker) inside(abs string) bool {
	root := w.root
	if root == "" || abs == "" {
		return false
	}
	root = path.Clean(root)
	return abs == root || strings.HasPrefix(abs, strings.TrimSuffix(root, "/")+"/")
}

// dotGlob reports whether a wildcard in p could match "..".
func dotGlob(p string) bool {
	for _, c := range strings.Split(p, "/") {
		if strings.ContainsAny(c, "*?[") && (strings.HasPrefix(c, ".") || strings.HasPrefix(c, "[")) {
			return true
		}
	}
	return false
}

func (w *walker) outsideMsg(what, abs string) error {
	return refuse("%s is outside the workspace (%s); without the sandbox commands may only name paths inside ScreenOptions.Workspace", what, abs)
}

// readPath judges a path a command reads. In allowlist mode it must be
// literal and inside the workspace; in deny list mode it may not climb
// out with "..", nor start at a home directory.
func (w *walker) readPath(f field, what string) error {
	if f.tilde() {
		return refuse("%s points at a home directory outside the workspace", what)
	}
	if f.dynamic {
		if w.allowlist() {
			return refuse("%s is computed when the command runs; allowlist mode takes literal paths only", what)
		}
		return nil
	}
	if f.val == "-" || f.val == "" {
		return nil
	}
	abs := w.locate(f.val)
	if abs == "" {
		if w.allowlist() {
			return refuse("%s is relative to a directory cd moved to that is not known before the command runs", what)
		}
		return nil
	}
	if strings.HasPrefix(abs, "/dev/tcp/") || strings.HasPrefix(abs, "/dev/udp/") {
		return refuse("network redirections through /dev/tcp or /dev/udp are not allowed")
	}
	if isStdio(abs) || slices.Contains(readDevices, abs) || w.inside(abs) {
		if w.allowlist() && f.glob && dotGlob(f.val) {
			return refuse("%s has a wildcard that can match \"..\"; spell the path out", what)
		}
		return nil
	}
	if w.allowlist() {
		return w.outsideMsg(what, abs)
	}
	if strings.Contains(f.val, "..") {
		return refuse("%s climbs out of the workspace", what)
	}
	return nil
}

// writePath judges a path a command writes: literal, and inside the
// workspace in every mode.
func (w *walker) writePath(f field, what string) error {
	if f.tilde() {
		return refuse("%s points at a home directory outside the workspace", what)
	}
	if f.dynamic {
		return refuse("%s is computed when the command runs; spell out the path", what)
	}
	if f.glob {
		return refuse("%s uses wildcards; spell out the path", what)
	}
	abs := w.locate(f.val)
	if abs == "" {
		return refuse("%s is relative to a directory cd moved to that is not known before the command runs; use a path from the workspace", what)
	}
	if strings.HasPrefix(abs, "/dev/tcp/") || strings.HasPrefix(abs, "/dev/udp/") {
		return refuse("network redirections through /dev/tcp or /dev/udp are not allowed")
	}
	if abs == "/dev/null" || isStdio(abs) || w.inside(abs) {
		return nil
	}
	return refuse("%s writes outside the workspace (%s)", what, abs)
}

// chdir follows cd, so that later relative paths are judged from where
// they will be. A target not known before the command runs (computed,
// "-", a home directory, popd's stack) loses the working directory.
func (w *walker) chdir(prog string, args []field) error {
	var target *field
	for i := range args {
		a := args[i]
		if !a.dynamic && a.val != "-" && strings.HasPrefix(a.val, "-") && target == nil {
			continue
		}
		target = &args[i]
		break
	}
	if prog == "popd" || target == nil || target.dynamic || target.val == "-" || target.tilde() || strings.HasPrefix(target.val, "+") {
		if w.allowlist() {
			return refuse("%s to a directory not known before the command runs is not allowed in allowlist mode", prog)
		}
		w.lost = true
		return nil
	}
	if err := w.readPath(*target, fmt.Sprintf("%s's directory %q", prog, target.raw)); err != nil {
		return err
	}
	if abs := w.locate(target.val); abs != "" {
		w.dir = abs
	} else {
		w.lost = true
	}
	return nil
}
