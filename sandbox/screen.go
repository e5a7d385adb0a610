package sandbox

import (
	"errors"
	"fmt"
	"slices"
	"strings"
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
	// ScreenAllowlist runs only commands whose every program is on the
	// allowlist, with every argument known before the command runs and
	// every path it names inside the workspace. It is meant for use
	// without the sandbox, where the screen is all there is: whatever it
	// cannot judge it refuses.
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

// Screener decides whether a command line may run. It parses the line
// with a real shell parser (bash dialect) and judges every command in it:
// those in pipelines, lists, subshells, control structures, command
// substitutions and the string of an allowlisted sh -c.
//
// In [ScreenDenylist] mode it is cooperative hardening against a model
// that is confused or has been talked into something, not a security
// boundary: the sandbox is the wall. In [ScreenAllowlist] mode it fails
// closed: a program off the allowlist, an option its table does not know
// (GNU long options are resolved by unique prefix, as the tools do), a
// word computed when the command runs where its value matters, or a path
// outside the workspace (including /dev/fd/... and /proc/self/fd/...
// spellings of one) is refused. A Screener is immutable and safe for
// concurrent use.
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
	allow := opts.Allow
	if len(allow) == 0 {
		allow = DefaultAllow
	}
	// Sized once: growing a map rehashes it, and a new process builds
	// its screeners on the way to its first turn.
	s := &Screener{mode: opts.Mode, allow: make(map[string]bool, len(allow)),
		deny: make(map[string]bool, len(denyNames)+len(opts.Deny)), workspace: opts.Workspace}
	for _, n := range allow {
		if n == "" || strings.ContainsAny(n, "/ \t\n;&|$`'\"\\") {
			return nil, fmt.Errorf("allowlist entry %q is not a plain program name", n)
		}
		s.allow[n] = true
	}
	for _, n := range denyNames {
		s.deny[n] = true
	}
	for _, n := range opts.Deny {
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
