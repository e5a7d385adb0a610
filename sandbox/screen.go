package sandbox

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"unicode"
)

// ErrRefused marks a command the screen refused. The wrapping error says
// why in words the model can act on.
var ErrRefused = errors.New("command refused")

// ScreenMode selects how commands are screened.
type ScreenMode int

const (
	// ScreenDenylist runs anything that is not on the deny list and uses
	// none of the known tricks. It is meant for use inside the sandbox,
	// which is the real boundary.
	ScreenDenylist ScreenMode = iota
	// ScreenAllowlist runs only commands whose program is on the
	// allowlist, and refuses outright any command line containing a
	// construct that can start a second command.
	ScreenAllowlist
)

// DefaultAllow is the allowlist used when [ScreenOptions.Allow] is empty:
// programs that read and report but do not run other programs or change
// anything outside their arguments. git, go, make and the like are left
// out on purpose: each runs code from the workspace (hooks, tests,
// Makefiles), which is exactly what an unsandboxed host cannot contain.
var DefaultAllow = []string{
	"cat", "cut", "date", "df", "diff", "du", "echo", "file", "find", "grep", "head",
	"ls", "pwd", "printf", "rg", "sort", "stat", "tail", "tr", "tree", "uname", "uniq",
	"wc", "which", "whoami",
}

// denyNames are programs refused in every mode: privilege changes,
// disk and system administration, and the builtins that run a string or a
// file as shell code.
var denyNames = []string{
	"sudo", "su", "doas", "pkexec", "runuser",
	"mkfs", "fdisk", "sfdisk", "parted", "wipefs", "mkswap", "swapon", "swapoff",
	"shutdown", "reboot", "halt", "poweroff", "init", "telinit",
	"insmod", "rmmod", "modprobe", "mount", "umount", "chroot", "nsenter", "unshare",
	"crontab", "iptables", "nft", "passwd", "chpasswd", "useradd", "userdel", "usermod", "visudo",
	"eval", "source", ".", "watch", "trap", "alias",
}

// shells run their argument or their standard input as shell code.
var shells = []string{"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "yash", "rbash"}

// interpreters run code read from standard input when given no script.
var interpreters = []string{"python", "python2", "python3", "perl", "ruby", "node", "nodejs", "php", "lua", "tclsh", "Rscript", "osascript"}

// dangerousAssign are variables that change what a command runs or loads.
var dangerousAssign = []string{
	"LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "DYLD_INSERT_LIBRARIES", "DYLD_LIBRARY_PATH",
	"BASH_ENV", "ENV", "PATH", "IFS", "PS4", "PROMPT_COMMAND", "SHELLOPTS", "BASHOPTS",
	"GIT_SSH", "GIT_SSH_COMMAND", "GIT_EXTERNAL_DIFF", "GIT_PAGER", "GIT_EDITOR", "GIT_CONFIG_PARAMETERS",
	"GIT_CONFIG_COUNT", "PAGER", "MANPAGER", "EDITOR", "VISUAL", "PERL5OPT", "PYTHONSTARTUP", "NODE_OPTIONS",
}

// writers are programs whose path operands are written, moved or removed:
// those operands must stay in the workspace and be spelled out literally.
var writers = []string{"rm", "rmdir", "mv", "cp", "chmod", "chown", "chgrp", "ln", "truncate", "shred", "tee", "touch", "mkdir", "install", "dd", "unlink"}

// binDirs are where a program named by absolute path may live in
// allowlist mode.
var binDirs = []string{"/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin"}

// secondCommand lists what allowlist mode refuses anywhere in a command
// line, quoted or not: each can make the shell run a second command that
// first-word matching never sees.
var secondCommand = []string{";", "&", "|", "\n", "\r", "`", "$(", "<(", ">("}

// ScreenOptions configures a [Screener]. A nil *ScreenOptions means deny
// list mode with no workspace checks beyond "~" and "..".
type ScreenOptions struct {
	// Mode selects deny list or allowlist screening. The zero value is
	// [ScreenDenylist].
	Mode ScreenMode
	// Allow lists the programs allowlist mode admits, by name. Empty means
	// [DefaultAllow].
	Allow []string
	// Deny adds program names refused in every mode.
	Deny []string
	// Workspace is the directory commands may write in. Redirections and
	// the path operands of commands that write must resolve inside it.
	// Empty means the working directory given to [Screener.Check].
	Workspace string
}

// Screener decides whether a command line may run. It is cooperative
// hardening against a model that is confused or has been talked into
// something, not a security boundary: a shell is too rich a language to
// screen completely, which is why the sandbox exists. A Screener is
// immutable and safe for concurrent use.
type Screener struct {
	mode      ScreenMode
	allow     map[string]bool
	deny      map[string]bool
	workspace string
}

// NewScreener returns a Screener for opts. It refuses an allowlist entry
// that is not a plain program name.
func NewScreener(opts *ScreenOptions) (*Screener, error) {
	if opts == nil {
		opts = &ScreenOptions{}
	}
	s := &Screener{mode: opts.Mode, allow: map[string]bool{}, deny: map[string]bool{}, workspace: opts.Workspace}
	allow := opts.Allow
	if len(allow) == 0 {
		allow = DefaultAllow
	}
	for _, n := range allow {
		if n == "" || strings.ContainsAny(n, "/ \t\n;&|$`'\"\\") {
			return nil, fmt.Errorf("allowlist entry %q is not a plain program name", n)
		}
		s.allow[n] = true
	}
	for _, n := range slices.Concat(denyNames, opts.Deny) {
		s.deny[n] = true
	}
	return s, nil
}

// Mode reports the screening mode.
func (s *Screener) Mode() ScreenMode { return s.mode }

// Allowed returns the allowlist in sorted order. It is only enforced in
// [ScreenAllowlist] mode.
func (s *Screener) Allowed() []string {
	out := make([]string, 0, len(s.allow))
	for n := range s.allow {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Check returns nil when command may run with working directory dir, and
// otherwise an error wrapping [ErrRefused] that says what to change.
func (s *Screener) Check(command, dir string) error {
	if err := s.check(command, dir, 0); err != nil {
		return fmt.Errorf("%w: %w", ErrRefused, err)
	}
	return nil
}

func refuse(format string, args ...any) error { return fmt.Errorf(format, args...) }

// NotAllowedError is the refusal, under [ScreenAllowlist], of a program
// that [ScreenOptions.Allow] does not list. [Screener.Check] returns it
// wrapped together with [ErrRefused]; find it with errors.As.
type NotAllowedError struct {
	// Program is the program refused.
	Program string
	// Via is the program that would have run it (env, xargs, a shell),
	// or empty when Program was the command itself.
	Via string
}

// Error says which program is not allowed and which option admits it.
func (e *NotAllowedError) Error() string {
	if e.Via != "" {
		return fmt.Sprintf("%q (run through %q) is not on the allowlist (ScreenOptions.Allow)", e.Program, e.Via)
	}
	return fmt.Sprintf("%q is not on the allowlist (ScreenOptions.Allow)", e.Program)
}

func (s *Screener) check(command, dir string, depth int) error {
	if depth > 4 {
		return refuse("command substitutions are nested too deeply")
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
	if s.mode == ScreenAllowlist {
		for _, m := range secondCommand {
			if strings.Contains(command, m) {
				return refuse("%q can start a second command, which allowlist mode never runs; run one command per call, without %q", strings.TrimSpace(m), strings.TrimSpace(m))
			}
		}
	}
	p, err := lex(command)
	if err != nil {
		return refuse("%s", err.Error())
	}
	if p.funcDef {
		return refuse("defining shell functions is not allowed")
	}
	if p.procSub {
		return refuse("process substitution <(...) and >(...) is not allowed; write to a file in the workspace instead")
	}
	if s.mode == ScreenAllowlist && len(p.cmds) != 1 {
		return refuse("allowlist mode runs exactly one command; remove the parentheses or braces")
	}
	for _, sub := range p.subs {
		if err := s.check(sub, dir, depth+1); err != nil {
			return fmt.Errorf("inside a command substitution: %w", err)
		}
	}
	for i := range p.cmds {
		if err := s.checkSimple(&p.cmds[i], dir); err != nil {
			return err
		}
	}
	return nil
}

// checkSimple screens one simple command.
func (s *Screener) checkSimple(c *simpleCmd, dir string) error {
	hereInput := false
	for _, r := range c.redirs {
		if err := s.checkRedirect(r, dir); err != nil {
			return err
		}
		if strings.HasPrefix(r.op, "<<") {
			hereInput = true
		}
	}
	words := c.words
	// Leading NAME=value assignments.
	for len(words) > 0 && isAssignment(words[0]) {
		name, _, _ := strings.Cut(words[0].text, "=")
		if s.mode == ScreenAllowlist {
			return refuse("allowlist mode does not run commands with variable assignments in front (%s=...)", name)
		}
		if slices.Contains(dangerousAssign, name) {
			return refuse("setting %s changes what a command runs or loads", name)
		}
		words = words[1:]
	}
	via := "" // the wrapper (env, xargs, ...) running words, if any
	for len(words) > 0 {
		prog, err := s.programName(words[0])
		if err != nil {
			return err
		}
		if s.deny[prog] || strings.HasPrefix(prog, "mkfs.") {
			return refuse("%q is on the deny list", prog)
		}
		if s.mode == ScreenAllowlist && !s.allow[prog] {
			return &NotAllowedError{Program: prog, Via: via}
		}
		args := words[1:]
		if err := s.checkArgs(prog, args, dir); err != nil {
			return err
		}
		if slices.Contains(shells, prog) {
			if err := checkShell(prog, args, c.pipedIn || hereInput); err != nil {
				return err
			}
			return nil
		}
		if slices.Contains(interpreters, prog) || strings.HasPrefix(prog, "python3.") {
			if (c.pipedIn || hereInput) && !hasOperand(args) {
				return refuse("piping code into %s is not allowed; write a script file in the workspace and run it", prog)
			}
		}
		inner, isWrapper, err := unwrap(prog, args)
		if err != nil {
			return err
		}
		if !isWrapper || len(inner) == 0 {
			return nil
		}
		words, via = inner, prog
	}
	return nil
}

// programName checks the command word and returns the program's base name.
func (s *Screener) programName(w word) (string, error) {
	if w.dynamic {
		return "", refuse("the program name %q is computed when the command runs; spell it out", w.raw)
	}
	if w.quoted {
		return "", refuse("the program name %q uses quotes or backslashes; spell it plainly", w.raw)
	}
	for _, r := range w.text {
		if r > unicode.MaxASCII {
			return "", refuse("the program name %q contains non-ASCII characters", w.text)
		}
	}
	if strings.HasPrefix(w.text, "{") || strings.HasPrefix(w.text, "}") {
		return "", refuse("command groups with braces are not allowed")
	}
	if strings.ContainsAny(w.text, "*?[]{}~") {
		// Globs and brace expansion turn s?do or s{u,}do into a program
		// name no list ever saw.
		return "", refuse("the program name %q uses wildcards or braces; spell it out", w.text)
	}
	name := w.text
	if strings.Contains(name, "/") {
		base := path.Base(name)
		if s.mode == ScreenAllowlist && !slices.Contains(binDirs, path.Dir(name)) {
			return "", refuse("%q is run by path; allowlist mode runs programs by name only", name)
		}
		name = base
	}
	return name, nil
}

// checkShell refuses a shell given code to run from a string or standard
// input. A shell running a script file is the same as running that file,
// which the sandbox, not the screen, has to contain.
func checkShell(prog string, args []word, stdin bool) error {
	for _, a := range args {
		t := a.text
		if t == "--" || !strings.HasPrefix(t, "-") {
			break
		}
		if strings.HasPrefix(t, "--") {
			if t == "--init-file" || t == "--rcfile" {
				return refuse("%s %s runs a file of shell code before anything else", prog, t)
			}
			continue
		}
		if strings.ContainsAny(t[1:], "cis") {
			return refuse("%s %s runs a string or standard input as shell code; run the command itself", prog, t)
		}
	}
	if !hasOperand(args) {
		if stdin {
			return refuse("piping or redirecting text into %s runs it as shell code", prog)
		}
		return refuse("%s without a script file starts an interactive shell", prog)
	}
	return nil
}

// hasOperand reports whether args has a word that is not an option.
func hasOperand(args []word) bool {
	for _, a := range args {
		if !strings.HasPrefix(a.text, "-") {
			return true
		}
	}
	return false
}

// unwrap recognises programs that run another program given as their
// arguments, and returns the words of that inner command.
func unwrap(prog string, args []word) (inner []word, ok bool, err error) {
	skipOpts := func(withArg string) []word {
		i := 0
		for i < len(args) {
			t := args[i].text
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
		for _, a := range args {
			if a.text == "-S" || strings.HasPrefix(a.text, "--split-string") || (strings.HasPrefix(a.text, "-") && !strings.HasPrefix(a.text, "--") && strings.Contains(a.text, "S")) {
				return nil, false, refuse("env -S splits a string into a command line; run the command directly")
			}
		}
		rest := skipOpts("uCP")
		for len(rest) > 0 && isAssignment(rest[0]) {
			name, _, _ := strings.Cut(rest[0].text, "=")
			if slices.Contains(dangerousAssign, name) {
				return nil, false, refuse("setting %s changes what a command runs or loads", name)
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
		if prog == "taskset" && len(rest) > 0 {
			rest = rest[1:]
		}
		if prog == "flock" && len(rest) > 0 {
			rest = rest[1:]
		}
		return rest, true, nil
	case "exec":
		return skipOpts("a"), true, nil
	case "command":
		for _, a := range args {
			if a.text == "-v" || a.text == "-V" {
				return nil, false, nil
			}
		}
		return skipOpts(""), true, nil
	case "xargs":
		for _, a := range args {
			if strings.HasPrefix(a.text, "-") && (strings.Contains(a.text, "I") || strings.HasPrefix(a.text, "--replace")) {
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

// checkArgs applies the per-program rules and the path rules to the
// arguments of one command.
func (s *Screener) checkArgs(prog string, args []word, dir string) error {
	lower := func(w word) string { return strings.ToLower(w.text) }
	for i, a := range args {
		t := a.text
		switch prog {
		case "find":
			if slices.Contains([]string{"-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls"}, t) {
				return refuse("find %s runs or writes through another program; list the files, then act on them in a separate command", t)
			}
			if t == "-delete" && s.mode == ScreenAllowlist {
				return refuse("find -delete removes files, and the allowlist holds programs that only read")
			}
		case "sort", "tree":
			if strings.HasPrefix(t, "--compress-program") {
				return refuse("sort --compress-program runs another program")
			}
			// -o writes a file: the same rule as a redirection.
			if (t == "-o" || t == "--output") && i+1 < len(args) {
				if err := s.checkRedirect(redirect{op: ">", target: args[i+1]}, dir); err != nil {
					return err
				}
			} else if v, ok := strings.CutPrefix(t, "--output="); ok {
				if err := s.checkRedirect(redirect{op: ">", target: word{text: v, raw: v, dynamic: a.dynamic}}, dir); err != nil {
					return err
				}
			}
		case "date":
			if t == "-s" || strings.HasPrefix(t, "--set") {
				return refuse("date %s changes the system clock", t)
			}
		case "file":
			if t == "-C" || t == "--compile" {
				return refuse("file -C writes a compiled magic file")
			}
		case "rg":
			if strings.HasPrefix(t, "--pre") {
				return refuse("rg %s runs another program on every file", t)
			}
		case "man":
			if t == "-P" || t == "-H" || strings.HasPrefix(t, "--pager") || strings.HasPrefix(t, "--html") || strings.HasPrefix(t, "-P") {
				return refuse("man %s runs another program", t)
			}
		case "tar":
			for _, f := range []string{"--to-command", "--use-compress-program", "--checkpoint-action", "--info-script", "--new-volume-script", "--rsh-command"} {
				if strings.HasPrefix(t, f) {
					return refuse("tar %s runs another program", f)
				}
			}
			if t == "-I" || t == "-F" {
				return refuse("tar %s runs another program", t)
			}
		case "git":
			if t == "-c" || strings.HasPrefix(t, "--config-env") || strings.HasPrefix(t, "--upload-pack") ||
				strings.HasPrefix(t, "--receive-pack") || strings.HasPrefix(t, "--exec") || strings.HasPrefix(t, "ext::") {
				return refuse("git %s can make git run another program", t)
			}
		case "ssh", "scp", "sftp":
			if strings.Contains(lower(a), "proxycommand") || strings.Contains(lower(a), "localcommand") {
				return refuse("%s options that run local commands are not allowed", prog)
			}
		case "rsync":
			if t == "-e" || strings.HasPrefix(t, "--rsh") || strings.HasPrefix(t, "--rsync-path") {
				return refuse("rsync %s runs another program", t)
			}
		case "nc", "ncat", "netcat":
			if t == "-e" || t == "-c" || strings.HasPrefix(t, "--exec") || strings.HasPrefix(t, "--sh-exec") || strings.HasPrefix(t, "--lua-exec") {
				return refuse("%s %s connects a program to the network", prog, t)
			}
		case "socat":
			if l := lower(a); strings.Contains(l, "exec:") || strings.Contains(l, "system:") {
				return refuse("socat EXEC/SYSTEM addresses run a program on a socket")
			}
		case "awk", "gawk", "mawk", "nawk", "busybox-awk":
			if l := t; strings.Contains(l, "system(") || strings.Contains(l, "| getline") || strings.Contains(l, "|getline") ||
				strings.Contains(l, "print |") || strings.Contains(l, "print|") || strings.Contains(l, "printf |") {
				return refuse("%s programs that run commands (system, pipes) are not allowed", prog)
			}
		case "dd":
			if strings.HasPrefix(t, "of=/dev/") && t != "of=/dev/null" {
				return refuse("dd to a device is not allowed")
			}
		case "sed":
			if i == 0 && (strings.Contains(t, "/e") || strings.HasPrefix(t, "e ")) && !strings.HasPrefix(t, "-") {
				if strings.HasSuffix(t, "/e") || strings.Contains(t, "/e;") {
					return refuse("sed's e command runs the pattern space as a shell command")
				}
			}
		}
		if err := s.checkPathArg(prog, a, dir); err != nil {
			return err
		}
	}
	return nil
}

// checkPathArg applies the workspace rules to one argument: "~" and a
// ".." that climbs out of the workspace are refused for every program;
// programs that write must name literal paths inside the workspace.
func (s *Screener) checkPathArg(prog string, a word, dir string) error {
	cands := []string{a.text}
	if strings.HasPrefix(a.text, "-") {
		if _, v, ok := strings.Cut(a.text, "="); ok {
			cands = []string{v}
		} else {
			cands = nil
		}
	} else if k, v, ok := strings.Cut(a.text, "="); ok && (k == "of" || k == "if") {
		cands = []string{v}
	}
	writes := slices.Contains(writers, prog)
	if s.mode == ScreenAllowlist && a.dynamic {
		// Without the sandbox nothing else stands between $HOME/.ssh and
		// the command, so every word must be literal.
		return refuse("%q is expanded when the command runs; allowlist mode takes literal arguments only", a.raw)
	}
	for _, c := range cands {
		if s.mode == ScreenAllowlist && path.IsAbs(c) && !s.inside(c, dir) && c != "/dev/null" {
			return refuse("%q is outside the workspace; allowlist screening admits only paths inside ScreenOptions.Workspace", c)
		}
		if strings.HasPrefix(a.raw, "~") || strings.HasPrefix(c, "~") {
			return refuse("%q points at a home directory outside the workspace", c)
		}
		if a.dynamic && writes {
			return refuse("%s's operand %q is computed when the command runs; spell out the path", prog, a.raw)
		}
		if !s.inside(c, dir) && (strings.Contains(c, "..") || (writes && path.IsAbs(c))) {
			return refuse("%q is outside the workspace", c)
		}
	}
	return nil
}

func (s *Screener) checkRedirect(r redirect, dir string) error {
	t := r.target.text
	if strings.HasPrefix(r.op, "<<") {
		return nil
	}
	if r.op == ">&" || r.op == "<&" {
		if isDigits(t) || t == "-" {
			return nil
		}
	}
	if r.target.dynamic {
		return refuse("the redirection target %q is computed when the command runs; spell out the path", r.target.raw)
	}
	if strings.HasPrefix(r.target.raw, "~") {
		return refuse("redirection to %q points at a home directory outside the workspace", r.target.raw)
	}
	if r.op == "<" {
		if s.mode == ScreenAllowlist && !s.inside(t, dir) && t != "/dev/null" {
			return refuse("%q is outside the workspace; allowlist screening admits only paths inside ScreenOptions.Workspace", t)
		}
		if strings.Contains(t, "..") && !s.inside(t, dir) {
			return refuse("%q is outside the workspace", t)
		}
		return nil
	}
	switch t {
	case "/dev/null", "/dev/stdout", "/dev/stderr":
		return nil
	}
	if strings.HasPrefix(t, "/dev/fd/") {
		return nil
	}
	if !s.inside(t, dir) {
		return refuse("redirection to %q writes outside the workspace", t)
	}
	return nil
}

// inside reports whether p, relative to dir, is inside the workspace,
// lexically. Symbolic links are the sandbox's business.
func (s *Screener) inside(p, dir string) bool {
	root := s.workspace
	if root == "" {
		root = dir
	}
	if root == "" {
		root = "/nonexistent-workspace"
	}
	if dir == "" {
		dir = root
	}
	abs := p
	if !path.IsAbs(p) {
		abs = path.Join(dir, p)
	}
	abs = path.Clean(abs)
	root = path.Clean(root)
	return abs == root || strings.HasPrefix(abs, strings.TrimSuffix(root, "/")+"/")
}

func isAssignment(w word) bool {
	if w.quoted && !strings.Contains(w.raw, "=") {
		return false
	}
	name, _, ok := strings.Cut(w.raw, "=")
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
