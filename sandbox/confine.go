package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/joshbot/joshbot/sandbox/internal/confine"
)

// ErrUnsupported is returned by [New] when this platform or kernel has no
// sandbox that can enforce the policy. A caller that asked for a sandbox
// must treat it as fatal rather than run commands unconfined.
var ErrUnsupported = errors.New("no sandbox is available on this system")

// ErrNetworkUndeniable is wrapped, together with [ErrUnsupported], by the
// error [New] returns when the policy denies network access
// ([Policy.AllowNetwork] false) and the system's sandbox can confine files
// but not the network ([Report.CanDenyNetwork] false). The Linux sandbox
// always can, through its empty network namespace.
var ErrNetworkUndeniable = errors.New("the sandbox cannot deny network access here")

// HelperArg is the argv[1] sentinel that marks a process started by
// [Sandbox.Command] as the confining helper. A program that uses the
// Linux sandbox calls [RunHelperIfRequested] first thing in main (and a
// test binary in TestMain), before it does anything else.
const HelperArg = confine.Arg

// Policy says what a confined command may reach. Paths that do not exist
// are ignored, so a list of build caches can name caches this machine
// does not have.
type Policy struct {
	// Workspace is the directory the command may read and write. It is
	// required and must exist.
	Workspace string
	// ReadWrite lists more directories the command may read and write.
	ReadWrite []string
	// ReadOnly lists directories the command may read and execute from,
	// beyond the system directories that are always readable.
	ReadOnly []string
	// CacheDir is the directory that holds this sandbox's build caches
	// (Go's GOCACHE, GOMODCACHE and GOPATH, npm_config_cache,
	// PIP_CACHE_DIR, XDG_CACHE_HOME), kept apart from the user's own
	// caches so a command can neither read what they hold nor plant code
	// a later unconfined build would run. It is created when missing and
	// is writable by the command. Empty means every command gets
	// throwaway caches in its private temporary directory.
	CacheDir string
	// AllowNetwork lets the command open outbound TCP connections. The
	// zero value denies them. On Linux the connections still leave only
	// through a proxy in the calling process that refuses non-public
	// addresses ([DialControl]).
	AllowNetwork bool
}

// ErrHelperMismatch is wrapped by the error [Sandbox.Command] returns when
// [Options.HelperBuildID] is set and the file at [Options.Helper] does not
// carry that build ID: a helper from another build (a stale copy left
// beside an upgraded program, say) is never run.
var ErrHelperMismatch = errors.New("the sandbox helper is not the expected build")

// Options configures [New]. A nil *Options means the defaults.
type Options struct {
	// Helper is the executable re-run as the confining helper on Linux.
	// Empty means os.Executable(), the running program, which must call
	// [RunHelperIfRequested] at the top of main. A small program whose
	// main calls only [RunHelperIfRequested] starts in about half the
	// time of a large one, and every confined command pays that start.
	Helper string
	// HelperBuildID, when not empty, is the Go build ID the file at
	// Helper must carry: what `go tool buildid` prints for it, whose last
	// part hashes the file's content. The file is opened and its ID read
	// once, on the first [Sandbox.Command], and that open file is what
	// every command then runs; a file that differs is never run, and
	// Command fails with an error wrapping [ErrHelperMismatch]. Empty runs
	// Helper unchecked.
	HelperBuildID string
	// ProxyAllow, when not nil, admits addresses the network proxy would
	// otherwise refuse as not public (see [DialControl]): an operator's
	// explicit opt-in, or a test reaching a server on loopback. Nil
	// admits public addresses only. It matters only with
	// [Policy.AllowNetwork] on Linux.
	ProxyAllow func(netip.AddrPort) bool
	// ProbeCache, when not empty, is a file where [New] keeps what
	// [Probe] found, so that later sandboxes, in this process or the
	// next, skip the probe's processes. The report is used only when
	// everything that can change it is as it was when it was made: the
	// boot, the kernel, this process's ids, capabilities, namespaces and
	// seccomp state, the sysctls that gate user namespaces, the Landlock
	// ABI, this program's build and HelperBuildID. Only a report of a
	// working sandbox is kept. A report that is stale all the same never
	// weakens confinement: the helper applies every layer and refuses to
	// run a command when one fails. The file is written 0600, atomically,
	// in a directory made 0700 when missing. Empty probes every time, and
	// so does [Probe] itself, the diagnostic. It matters only on Linux.
	ProbeCache string
}

// Sandbox starts commands confined to a [Policy]. Its policy never
// changes; the one thing it keeps is a helper started ahead of a command
// ([Sandbox.Prestart]). It is safe for concurrent use.
type Sandbox struct {
	policy    Policy
	helper    string
	helperID  string
	helperExe helperFile
	// selfHelper is set when the helper is this program re-run.
	selfHelper bool
	report     Report
	proxyAllow func(netip.AddrPort) bool
	plat       platformState
}

// DefaultCacheDirs used to return the user's own build caches under home
// for [Policy.ReadWrite]. Handing a confined command the real ~/.cache or
// Go module cache let it read tokens kept there and plant code that a
// later unconfined build would run, so it now returns nil.
//
// Deprecated: set [Policy.CacheDir] to a directory of the program's own.
func DefaultCacheDirs(home string) []string { return nil }

// New checks that this system can enforce p and returns a Sandbox for it.
// It returns an error wrapping [ErrUnsupported], naming the missing layer,
// when it cannot: a sandbox that was asked for is never quietly weaker.
// It probes the system ([Probe]) unless [Options.ProbeCache] holds a
// report made under the same conditions. What commands need beyond that
// (the seccomp filter, the idmapped mounts of a root process) is made on
// the first [Sandbox.Command], whose error then names what is missing.
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
	if p.CacheDir != "" {
		if err := os.MkdirAll(p.CacheDir, 0o700); err != nil {
			return nil, fmt.Errorf("sandbox: cache directory: %w", err)
		}
		if pol.CacheDir, err = realDir(p.CacheDir); err != nil {
			return nil, fmt.Errorf("sandbox: cache directory: %w", err)
		}
	}
	var cachePath, cacheHelperID string
	if opts != nil {
		cachePath, cacheHelperID = opts.ProbeCache, opts.HelperBuildID
	}
	rep := probeFor(cachePath, cacheHelperID)
	if !rep.Available {
		return nil, fmt.Errorf("%w: %s", ErrUnsupported, rep.Reason)
	}
	if !pol.AllowNetwork && !rep.CanDenyNetwork {
		return nil, fmt.Errorf("%w: %w: %s needs Landlock ABI 4 or later for that, this kernel has %d; set Policy.AllowNetwork to true to accept that",
			ErrUnsupported, ErrNetworkUndeniable, rep.Mechanism, rep.LandlockABI)
	}
	s := &Sandbox{policy: pol, report: rep}
	if opts != nil {
		s.helper, s.helperID, s.proxyAllow = opts.Helper, opts.HelperBuildID, opts.ProxyAllow
	}
	if s.helperID != "" && s.helper == "" {
		return nil, errors.New("sandbox: Options.HelperBuildID is set but Options.Helper is empty; name the helper file it is the build ID of")
	}
	if s.helper == "" {
		s.helper, s.helperID = defaultHelper.path, defaultHelper.id
	}
	if s.helper == "" && runtime.GOOS == "linux" {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("sandbox: finding the helper executable: %w", err)
		}
		s.helper, s.selfHelper = exe, true
	}
	if err := s.prepare(); err != nil {
		return nil, err
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
// inside the workspace), with env as its environment plus TMPDIR (a
// private temporary directory) and the cache variables of
// [Policy.CacheDir]. The returned cleanup releases what the command held
// and must be called once the command is done. On Linux, every process
// the command starts dies when it exits or is killed.
func (s *Sandbox) Command(ctx context.Context, dir string, argv, env []string) (cmd *exec.Cmd, cleanup func(), err error) {
	if len(argv) == 0 {
		return nil, nil, errors.New("sandbox: empty command")
	}
	return s.command(ctx, dir, argv, env)
}

// cacheEnv returns the variables that point every toolchain's cache under
// root.
func cacheEnv(root string) []string {
	return []string{
		"GOCACHE=" + filepath.Join(root, "go-build"),
		"GOMODCACHE=" + filepath.Join(root, "go", "pkg", "mod"),
		"GOPATH=" + filepath.Join(root, "go"),
		"npm_config_cache=" + filepath.Join(root, "npm"),
		"PIP_CACHE_DIR=" + filepath.Join(root, "pip"),
		"XDG_CACHE_HOME=" + filepath.Join(root, "xdg"),
	}
}

// setEnv returns env with each NAME=value of set replacing any earlier
// value of NAME.
func setEnv(env []string, set ...string) []string {
	out := slices.Clone(env)
	for _, kv := range set {
		name, _, _ := strings.Cut(kv, "=")
		out = slices.DeleteFunc(out, func(e string) bool { return strings.HasPrefix(e, name+"=") })
		out = append(out, kv)
	}
	return out
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

// defaultHelper is the helper, and its build ID, of a sandbox whose
// Options.Helper is empty; empty means os.Executable(). Tests set it to
// run their corpus through a dedicated helper.
var defaultHelper struct{ path, id string }

// probe is Probe; tests replace it to play systems without a sandbox.
var probe = Probe

// Layer is one layer of the sandbox as [Probe] found it.
type Layer struct {
	// Available reports whether the layer works here.
	Available bool `json:"available"`
	// Detail says what was found ("ABI 7") or, when the layer is
	// missing, why, in words a user can act on.
	Detail string `json:"detail,omitempty"`
}

// Report describes the sandbox this system offers.
type Report struct {
	// Platform is runtime.GOOS.
	Platform string `json:"platform"`
	// Mechanism is "namespaces+seccomp+landlock" on Linux, "seatbelt" on
	// macOS, or empty when there is none.
	Mechanism string `json:"mechanism,omitempty"`
	// LandlockABI is the kernel's Landlock ABI version; 0 means none (or
	// not Linux).
	LandlockABI int `json:"landlock_abi"`
	// Available reports whether shell commands can be confined here: on
	// Linux, every layer below that this process needs is available.
	Available bool `json:"available"`
	// CanDenyNetwork reports whether outbound connections can be denied.
	CanDenyNetwork bool `json:"can_deny_network"`
	// Reason explains an unavailable sandbox in words a user can act on.
	Reason string `json:"reason,omitempty"`
	// Namespaces is the Linux user, mount, PID, network, IPC and UTS
	// namespace layer.
	Namespaces Layer `json:"namespaces"`
	// IDMappedMounts is the layer that lets a command run as an
	// unprivileged id yet own what it writes in the workspace. Only a
	// process running as root needs it; for others Detail says so.
	IDMappedMounts Layer `json:"idmapped_mounts"`
	// Seccomp is the system call filter layer.
	Seccomp Layer `json:"seccomp"`
	// Landlock is the filesystem access layer; Detail names its ABI.
	Landlock Layer `json:"landlock"`
}

// Layers returns the layers in the order they wrap a command, each with
// its name, for a report that prints one line per layer. It is empty
// where the platform has no layered sandbox (macOS, others).
func (r Report) Layers() []NamedLayer {
	if r.Platform != "linux" {
		return nil
	}
	return []NamedLayer{
		{"namespaces", r.Namespaces},
		{"idmapped mounts", r.IDMappedMounts},
		{"seccomp", r.Seccomp},
		{"landlock", r.Landlock},
	}
}

// NamedLayer is a [Layer] with its name, as [Report.Layers] lists them.
type NamedLayer struct {
	Name string `json:"name"`
	Layer
}
