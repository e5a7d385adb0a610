package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
)

// ErrUnsupported is returned by [New] when this platform or kernel has no
// sandbox that can enforce the policy. A caller that asked for a sandbox
// must treat it as fatal rather than run commands unconfined.
var ErrUnsupported = errors.New("no sandbox is available on this system")

// ErrNetworkUndeniable is wrapped, together with [ErrUnsupported], by the
// error [New] returns when the policy denies network access
// ([Policy.AllowNetwork] false) and the system's sandbox can confine files
// but not the network (Landlock before ABI 4).
var ErrNetworkUndeniable = errors.New("the sandbox cannot deny network access here")

// HelperArg is the argv[1] sentinel that marks a process started by
// [Sandbox.Command] as the confining helper. A program that uses the
// Landlock sandbox calls [RunHelperIfRequested] first thing in main (and a
// test binary in TestMain), before it does anything else.
const HelperArg = "__sandbox-exec__"

// Policy says what a confined command may reach. Paths that do not exist
// are ignored, so a list of build caches can name caches this machine
// does not have.
type Policy struct {
	// Workspace is the directory the command may read and write. It is
	// required and must exist.
	Workspace string
	// ReadWrite lists more directories the command may read and write,
	// typically build caches ([DefaultCacheDirs]).
	ReadWrite []string
	// ReadOnly lists directories the command may read and execute from,
	// beyond the system directories that are always readable.
	ReadOnly []string
	// AllowNetwork lets the command open outbound TCP connections. The
	// zero value denies them.
	AllowNetwork bool
}

// Options configures [New]. A nil *Options means the defaults.
type Options struct {
	// Helper is the executable re-run as the confining helper on Linux.
	// Empty means os.Executable(), the running program, which must call
	// [RunHelperIfRequested] at the top of main.
	Helper string
}

// Sandbox starts commands confined to a [Policy]. It is immutable and safe
// for concurrent use.
type Sandbox struct {
	policy Policy
	helper string
	report Report
}

// systemReadOnly are the directories a confined command can read and
// execute from on every Unix: the toolchain and its libraries. /proc is
// left out on purpose: /proc/<pid>/environ of the parent holds the very
// credentials the child's environment was stripped of, and Landlock's
// ptrace scoping does not stop a root child from reading it.
var systemReadOnly = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix/store", "/sys", "/dev"}

// DefaultCacheDirs returns the build caches under home that a confined
// command may write: Go's build and module caches and the common per-user
// caches of other toolchains.
func DefaultCacheDirs(home string) []string {
	if home == "" {
		return nil
	}
	return []string{
		filepath.Join(home, ".cache"),
		filepath.Join(home, "go", "pkg", "mod"),
		filepath.Join(home, ".npm"),
		filepath.Join(home, ".cargo", "registry"),
		filepath.Join(home, "Library", "Caches"),
	}
}

// New checks that this system can enforce p and returns a Sandbox for it.
// It returns an error wrapping [ErrUnsupported] when it cannot, including
// when p denies the network and the kernel cannot.
func New(p *Policy, opts *Options) (*Sandbox, error) {
	if p == nil || p.Workspace == "" {
		return nil, errors.New("sandbox: the policy has no workspace")
	}
	ws, err := realDir(p.Workspace)
	if err != nil {
		return nil, fmt.Errorf("sandbox: workspace: %w", err)
	}
	pol := Policy{Workspace: ws, AllowNetwork: p.AllowNetwork}
	for _, d := range p.ReadWrite {
		if r, err := realDir(d); err == nil {
			pol.ReadWrite = append(pol.ReadWrite, r)
		}
	}
	for _, d := range p.ReadOnly {
		if r, err := realDir(d); err == nil {
			pol.ReadOnly = append(pol.ReadOnly, r)
		}
	}
	rep := probe()
	if !rep.Available {
		return nil, fmt.Errorf("%w: %s", ErrUnsupported, rep.Reason)
	}
	if !pol.AllowNetwork && !rep.CanDenyNetwork {
		return nil, fmt.Errorf("%w: %w: %s needs Landlock ABI 4 or later for that, this kernel has %d; set Policy.AllowNetwork to true to accept that",
			ErrUnsupported, ErrNetworkUndeniable, rep.Mechanism, rep.LandlockABI)
	}
	s := &Sandbox{policy: pol, report: rep}
	if opts != nil {
		s.helper = opts.Helper
	}
	if s.helper == "" && runtime.GOOS == "linux" {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("sandbox: finding the helper executable: %w", err)
		}
		s.helper = exe
	}
	return s, nil
}

// Policy returns the policy with every path resolved.
func (s *Sandbox) Policy() Policy {
	p := s.policy
	p.ReadWrite = slices.Clone(p.ReadWrite)
	p.ReadOnly = slices.Clone(p.ReadOnly)
	return p
}

// Report returns what [Probe] found when the sandbox was made.
func (s *Sandbox) Report() Report { return s.report }

// Command returns a command that runs argv confined, in dir (which must be
// inside the workspace), with exactly env as its environment. Each command
// gets a private temporary directory, writable and named by TMPDIR; the
// returned cleanup removes it and must be called once the command is done.
func (s *Sandbox) Command(ctx context.Context, dir string, argv, env []string) (cmd *exec.Cmd, cleanup func(), err error) {
	if len(argv) == 0 {
		return nil, nil, errors.New("sandbox: empty command")
	}
	tmp, err := os.MkdirTemp("", "sandbox-tmp-")
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: private temporary directory: %w", err)
	}
	if r, err := filepath.EvalSymlinks(tmp); err == nil {
		tmp = r
	}
	cleanup = func() { os.RemoveAll(tmp) }
	env = append(slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return len(kv) >= 7 && kv[:7] == "TMPDIR=" }), "TMPDIR="+tmp)
	cmd, err = s.command(ctx, dir, argv, env, tmp)
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	return cmd, cleanup, nil
}

func realDir(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	r, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(r)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", p)
	}
	return r, nil
}

// probe is Probe; tests replace it to play systems without a sandbox.
var probe = Probe

// Report describes the sandbox this system offers.
type Report struct {
	// Platform is runtime.GOOS.
	Platform string `json:"platform"`
	// Mechanism is "landlock", "seatbelt", or empty when there is none.
	Mechanism string `json:"mechanism,omitempty"`
	// LandlockABI is the kernel's Landlock ABI version; 0 means none (or
	// not Linux).
	LandlockABI int `json:"landlock_abi"`
	// Available reports whether shell commands can be confined here.
	Available bool `json:"available"`
	// CanDenyNetwork reports whether outbound TCP can be denied too.
	CanDenyNetwork bool `json:"can_deny_network"`
	// Reason explains an unavailable sandbox in words a user can act on.
	Reason string `json:"reason,omitempty"`
}
