//go:build linux

package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// hostID is the host uid and gid a confined command runs as when the
// calling process is root: 2^31-2^16, far above the ids distributions
// hand out (system and user ids, and the subordinate ranges of
// /etc/subuid that start at 100000) and below the 2^32-1 that means "no
// id". Inside its user namespace the command is uid 0 with every
// capability dropped; on the host it owns nothing, so root's 0600 files
// and /etc/shadow stay closed to it.
const hostID = 1<<31 - 1<<16

// linuxMechanism is [Report.Mechanism] on Linux.
const linuxMechanism = "namespaces+seccomp+landlock"

// cloneFlags are the namespaces every confined command gets.
const cloneFlags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID |
	syscall.CLONE_NEWNET | syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS | syscall.CLONE_NEWCGROUP

// systemDirs are bound read-only into every private root: the toolchain
// and its libraries. /sys, /run and /home are left out; a command that
// needs more is given it by [Policy.ReadOnly].
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix/store"}

// devFiles are the only device nodes in a private /dev.
var devFiles = []string{"null", "zero", "full", "random", "urandom", "tty"}

// Probe reports each layer of the Linux sandbox: user, mount, PID,
// network, IPC and UTS namespaces (tried by starting /bin/true in them),
// idmapped mounts (needed, and tried, only when this process is root), the
// seccomp filter and Landlock. It starts a process or two.
func Probe() Report {
	r := Report{Platform: "linux", Mechanism: linuxMechanism}
	if abi, err := llsys.LandlockGetABIVersion(); err != nil || abi < 1 {
		r.Landlock.Detail = "the kernel has no Landlock (it needs Linux 5.13 or later with landlock in the lsm= boot list)"
		if err != nil {
			r.Landlock.Detail += ": " + err.Error()
		}
	} else {
		r.LandlockABI = abi
		r.Landlock = Layer{Available: true, Detail: fmt.Sprintf("ABI %d", abi)}
	}
	// The two layers that start a process are probed at once.
	ns := make(chan Layer, 1)
	go func() { ns <- probeNamespaces() }()
	r.Seccomp = probeSeccomp()
	if os.Geteuid() == 0 {
		r.IDMappedMounts = probeIDMap()
	} else {
		r.IDMappedMounts = Layer{Available: true, Detail: "not needed: commands run as this process's own uid " + fmt.Sprint(os.Getuid())}
	}
	r.Namespaces = <-ns
	var missing []string
	for _, l := range r.Layers() {
		if !l.Available {
			missing = append(missing, l.Name+": "+l.Detail)
		}
	}
	r.Available = len(missing) == 0
	r.CanDenyNetwork = r.Available
	r.Reason = strings.Join(missing, "; ")
	return r
}

// childAttr returns the process attributes of the helper: fresh
// namespaces, the id mapping, and death with its parent.
func childAttr() *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Cloneflags: cloneFlags, Pdeathsig: syscall.SIGKILL}
	uid, gid := os.Getuid(), os.Getgid()
	if os.Geteuid() == 0 {
		uid, gid = hostID, hostID
		// Root's supplementary groups would still open group-readable
		// files; setgroups is allowed because the parent is privileged.
		a.GidMappingsEnableSetgroups = true
		a.Credential = &syscall.Credential{Uid: 0, Gid: 0, Groups: []uint32{}}
	}
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: uid, Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: gid, Size: 1}}
	return a
}

func probeNamespaces() Layer {
	const what = "user, mount, PID, network, IPC and UTS namespaces"
	if b, err := os.ReadFile("/proc/sys/user/max_user_namespaces"); err == nil && strings.TrimSpace(string(b)) == "0" {
		return Layer{Detail: what + " are unavailable: user.max_user_namespaces is 0 (raise it with sysctl)"}
	}
	truePath := "/bin/true"
	if _, err := os.Stat(truePath); err != nil {
		truePath = "/usr/bin/true"
	}
	cmd := exec.Command(truePath)
	cmd.SysProcAttr = childAttr()
	if err := cmd.Run(); err != nil {
		return Layer{Detail: fmt.Sprintf("creating %s failed: %v (user namespaces may be disabled by kernel.unprivileged_userns_clone, an AppArmor policy, or a container's seccomp profile)", what, err)}
	}
	return Layer{Available: true, Detail: what}
}

// platformState is what a Linux sandbox prepares once.
type platformState struct {
	root bool
	// bpf is the seccomp filter, generated once here and handed to
	// every helper in its spec.
	bpf []byte
}

// prepare checks, once, everything a command will need that can fail
// for a reason the user must fix.
func (s *Sandbox) prepare() error {
	filter, err := seccompFilter()
	if err != nil {
		return err
	}
	s.plat.bpf = filterBytes(filter)
	s.plat.root = os.Geteuid() == 0
	if !s.plat.root {
		return nil
	}
	for _, m := range s.mounts() {
		f, err := s.idmapped(m.Path, m.RO)
		if err != nil {
			return fmt.Errorf("%w: idmapped mounts: %v; a root process runs commands as an unprivileged id, which needs an idmapped mount of each directory the policy grants (Linux 5.12 or later, and a filesystem that supports them)", ErrUnsupported, err)
		}
		f.Close()
	}
	return nil
}

// mountSpec is one policy directory in the private root.
type mountSpec struct {
	Path string `json:"path"`
	RO   bool   `json:"ro,omitempty"`
	// FD is the helper's descriptor of a detached idmapped mount to move
	// to Path; 0 means bind Path from the host.
	FD int `json:"fd,omitempty"`
}

// mounts lists the policy's directories, parents before children.
func (s *Sandbox) mounts() []mountSpec {
	var ms []mountSpec
	for _, d := range s.policy.ReadOnly {
		ms = append(ms, mountSpec{Path: d, RO: true})
	}
	ms = append(ms, mountSpec{Path: s.policy.Workspace})
	for _, d := range s.policy.ReadWrite {
		ms = append(ms, mountSpec{Path: d})
	}
	if s.policy.CacheDir != "" {
		ms = append(ms, mountSpec{Path: s.policy.CacheDir})
	}
	slices.SortStableFunc(ms, func(a, b mountSpec) int { return strings.Count(a.Path, "/") - strings.Count(b.Path, "/") })
	return ms
}

// helperSpec is what the parent tells the helper, as JSON in argv[2]. It
// carries paths, flags and descriptor numbers, never anything secret.
type helperSpec struct {
	Mounts  []mountSpec `json:"mounts"`
	Dir     string      `json:"dir"`
	RW      []string    `json:"rw"`
	RO      []string    `json:"ro"`
	Network bool        `json:"net"`
	ProxyFD int         `json:"proxy_fd,omitempty"`
	// BPF is the seccomp filter's instructions (see filterBytes).
	BPF []byte `json:"bpf"`
}

func (s *Sandbox) command(ctx context.Context, dir string, argv, env []string) (*exec.Cmd, func(), error) {
	var files []*os.File
	var stops []func()
	cleanup := func() {
		// files[0], the helper, is the sandbox's and stays open.
		for _, f := range files[min(1, len(files)):] {
			f.Close()
		}
		for _, stop := range stops {
			stop()
		}
	}
	// The helper runs as an id that may not search the directories on
	// the way to the program (/root, a 0700 build directory), so it is
	// executed through a descriptor opened here, once per sandbox.
	exe, err := s.openHelper()
	if err != nil {
		return nil, nil, err
	}
	files = append(files, exe)
	spec := helperSpec{Dir: dir, Network: s.policy.AllowNetwork, BPF: s.plat.bpf}
	for _, m := range s.mounts() {
		if s.plat.root {
			f, err := s.idmapped(m.Path, m.RO)
			if err != nil {
				cleanup()
				return nil, nil, fmt.Errorf("sandbox: %w", err)
			}
			files = append(files, f)
			m.FD = 2 + len(files)
		}
		spec.Mounts = append(spec.Mounts, m)
		if m.RO {
			spec.RO = append(spec.RO, m.Path)
		} else {
			spec.RW = append(spec.RW, m.Path)
		}
	}
	spec.RW = append(spec.RW, "/tmp", "/dev/shm")
	spec.RO = append(append(spec.RO, systemDirs...), "/proc", "/dev")

	cache := "/tmp/cache"
	if s.policy.CacheDir != "" {
		cache = s.policy.CacheDir
	}
	env = setEnv(env, append(cacheEnv(cache), "TMPDIR=/tmp")...)
	if home := envValue(env, "HOME"); home == "" || !s.visible(home) {
		env = setEnv(env, "HOME=/tmp")
	}
	if spec.Network {
		child, stop, err := startProxy(s.proxyAllow)
		if err != nil {
			cleanup()
			return nil, nil, fmt.Errorf("sandbox: network proxy: %w", err)
		}
		stops = append(stops, stop)
		files = append(files, child)
		spec.ProxyFD = 2 + len(files)
	}
	b, err := json.Marshal(spec)
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	args := append([]string{HelperArg, string(b), "--"}, argv...)
	cmd := exec.CommandContext(ctx, "/proc/self/fd/3", args...)
	cmd.Args[0] = s.helper
	// The helper starts in /, which any id may search; it changes to dir
	// once dir is mounted where its id owns it.
	cmd.Dir = "/"
	cmd.Env = env
	cmd.ExtraFiles = files
	cmd.SysProcAttr = childAttr()
	return cmd, cleanup, nil
}

// visible reports whether path lies in a directory the command sees.
func (s *Sandbox) visible(path string) bool {
	for _, m := range s.mounts() {
		if path == m.Path || strings.HasPrefix(path, m.Path+"/") {
			return true
		}
	}
	return false
}

func envValue(env []string, name string) string {
	for _, kv := range slices.Backward(env) {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			return v
		}
	}
	return ""
}

// RunHelperIfRequested confines and runs the command when this process
// was started by [Sandbox.Command] (os.Args[1] is [HelperArg]); otherwise
// it returns at once. The helper is the first process of the command's
// PID namespace: it builds the private root, starts the command, forwards
// signals to it, reaps every orphan, and exits with the command's status,
// at which the kernel kills whatever the command left behind. It never
// returns; on a setup failure it prints the reason and exits with status
// 126, the shell's "cannot execute", so nothing runs unconfined.
func RunHelperIfRequested() {
	if len(os.Args) < 2 || os.Args[1] != HelperArg {
		return
	}
	// Capabilities, no_new_privs and the seccomp filter are per thread;
	// the command is started from this one.
	runtime.LockOSThread()
	code, err := runHelper(os.Args[2:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "sandbox: %v\n", err)
		os.Exit(126)
	}
	os.Exit(code)
}

func runHelper(args []string) (int, error) {
	if len(args) < 3 || args[1] != "--" {
		return 0, errors.New("helper started with malformed arguments")
	}
	var spec helperSpec
	if err := json.Unmarshal([]byte(args[0]), &spec); err != nil {
		return 0, fmt.Errorf("helper policy: %w", err)
	}
	argv := args[2:]
	// Nothing the parent passed (the helper's own executable, the proxy's
	// socket) may reach the command.
	if err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err != nil {
		return 0, fmt.Errorf("close_range: %w", err)
	}
	if os.Getpid() != 1 {
		return 0, errors.New("the helper is not the first process of a new PID namespace")
	}
	// The first signal.Notify starts the runtime's signal thread and
	// waits for it, some hundreds of microseconds on a busy machine; it
	// does so while the root is built. A signal that arrives before the
	// command starts is forwarded as soon as it has.
	sigs := make(chan os.Signal, 8)
	notified := make(chan struct{})
	go func() {
		signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2)
		close(notified)
	}()
	filter, err := filterFrom(spec.BPF)
	if err != nil {
		return 0, err
	}
	if err := buildRoot(&spec); err != nil {
		return 0, fmt.Errorf("private root: %w", err)
	}
	if err := unix.Sethostname([]byte("sandbox")); err != nil {
		return 0, fmt.Errorf("hostname: %w", err)
	}
	if err := loopbackUp(); err != nil {
		return 0, fmt.Errorf("loopback: %w", err)
	}
	env := os.Environ()
	if spec.ProxyFD > 0 {
		port, err := startForwarder(spec.ProxyFD)
		if err != nil {
			return 0, fmt.Errorf("network proxy: %w", err)
		}
		p := fmt.Sprintf("http://127.0.0.1:%d", port)
		env = setEnv(env, "HTTP_PROXY="+p, "HTTPS_PROXY="+p, "http_proxy="+p, "https_proxy="+p,
			"ALL_PROXY="+p, "all_proxy="+p, "NO_PROXY=", "no_proxy=")
	}
	path := argv[0]
	if !strings.Contains(path, "/") {
		if path, err = lookPath(path, envValue(env, "PATH")); err != nil {
			return 0, err
		}
	}
	if err := applyLandlock(&spec); err != nil {
		return 0, err
	}
	if err := dropCapabilities(); err != nil {
		return 0, err
	}
	if err := installSeccomp(filter); err != nil {
		return 0, err
	}
	stdio, drain, err := relayStdio()
	if err != nil {
		return 0, fmt.Errorf("standard streams: %w", err)
	}
	<-notified
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{
		Dir: spec.Dir, Env: env, Files: stdio,
		// A session of its own has no controlling terminal, so /dev/tty
		// cannot reach the keystrokes meant for an approval prompt.
		Sys: &syscall.SysProcAttr{Setsid: true},
	})
	if err != nil {
		return 0, fmt.Errorf("%s: %w", argv[0], err)
	}
	// Signals are forwarded from this thread: Landlock gave each thread
	// of the helper a domain of its own, the command shares this one's,
	// and a signal scoped by Landlock (ABI 6 and later) reaches only
	// processes of the sender's domain, so from any other thread the kill
	// fails with EPERM. Children are reaped on another thread meanwhile.
	exits := make(chan reaped, 1)
	go reap(pid, exits)
	for {
		var e reaped
		select {
		case sig := <-sigs:
			syscall.Kill(pid, sig.(syscall.Signal))
			continue
		case e = <-exits:
		}
		if e.err != nil {
			return 0, fmt.Errorf("waiting for the command: %w", e.err)
		}
		ws := e.status
		// Whatever the command left behind dies now, not when this
		// process exits, so its output can be drained to the end first.
		unix.Kill(-1, unix.SIGKILL)
		drain()
		if ws.Signaled() {
			return 128 + int(ws.Signal()), nil
		}
		return ws.ExitStatus(), nil
	}
}

// reaped is how the command ended, or why waiting for it failed.
type reaped struct {
	status unix.WaitStatus
	err    error
}

// reap waits for every child of the helper, reaping the orphans the
// command leaves behind, until the command (pid) itself ends, and sends
// its status.
func reap(pid int, exits chan<- reaped) {
	for {
		var ws unix.WaitStatus
		wpid, err := unix.Wait4(-1, &ws, 0, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			exits <- reaped{err: err}
			return
		}
		if wpid == pid {
			exits <- reaped{status: ws}
			return
		}
	}
}

// relayStdio gives the command pipes of its own for the standard
// streams that are pipes or sockets, and copies between them and the
// helper's. The parent's pipes belong to the parent's uid, which the
// command's id cannot reopen, so /dev/stdout and /dev/stderr would fail
// on them. It returns the command's descriptors and a function that
// waits, briefly, for the output copies to end once every writer is gone.
func relayStdio() (fds []uintptr, drain func(), err error) {
	fds = []uintptr{0, 1, 2}
	var wg sync.WaitGroup
	var st [3]unix.Stat_t
	var mine []*os.File
	for i := range 3 {
		if err := unix.Fstat(i, &st[i]); err != nil {
			continue
		}
		if t := st[i].Mode & unix.S_IFMT; t != unix.S_IFIFO && t != unix.S_IFSOCK {
			continue
		}
		if i == 2 && st[2].Dev == st[1].Dev && st[2].Ino == st[1].Ino && fds[1] != 1 {
			fds[2] = fds[1] // one pipe for both keeps their order
			continue
		}
		r, w, err := os.Pipe()
		if err != nil {
			return nil, nil, err
		}
		orig := os.NewFile(uintptr(i), fmt.Sprintf("fd%d", i))
		if i == 0 {
			fds[0] = r.Fd()
			mine = append(mine, r)
			go func() { io.Copy(w, orig); w.Close() }()
			continue
		}
		fds[i] = w.Fd()
		mine = append(mine, w)
		wg.Add(1)
		go func() { defer wg.Done(); io.Copy(orig, r); r.Close() }()
	}
	drain = func() {
		for _, f := range mine {
			f.Close()
		}
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(2 * time.Second):
		}
	}
	return fds, drain, nil
}

func lookPath(name, pathEnv string) (string, error) {
	for _, d := range filepath.SplitList(pathEnv) {
		if d == "" {
			d = "."
		}
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: %w", name, exec.ErrNotFound)
}

// applyLandlock restricts every thread of the helper, and so the command,
// to the paths of the private root.
func applyLandlock(spec *helperSpec) error {
	abi, err := llsys.LandlockGetABIVersion()
	if err != nil || abi < 1 {
		return fmt.Errorf("landlock unavailable in the helper: %v", err)
	}
	cfg := configFor(abi)
	if spec.Network {
		// The network namespace and the proxy confine connections; the
		// command must reach the proxy on loopback.
		cfg.HandledAccessNet = 0
	}
	rw := landlock.RWDirs(spec.RW...).IgnoreIfMissing()
	if abi >= 2 {
		rw = rw.WithRefer()
	}
	rules := []landlock.Rule{
		landlock.RODirs(spec.RO...).IgnoreIfMissing(),
		rw,
		landlock.RWFiles(prefixAll("/dev/", devFiles)...).IgnoreIfMissing(),
	}
	if err := cfg.Restrict(rules...); err != nil {
		return fmt.Errorf("applying landlock: %w", err)
	}
	return nil
}

func prefixAll(prefix string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = prefix + n
	}
	return out
}

// dropCapabilities empties this thread's capability bounding and ambient
// sets and locks the securebits that would give uid 0 its capabilities
// back at exec, so the command, uid 0 in its namespace, holds none.
func dropCapabilities() error {
	for c := 0; c < 64; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && err != unix.EINVAL {
			return fmt.Errorf("dropping capability %d: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("clearing ambient capabilities: %w", err)
	}
	const (
		noRoot, noRootLocked           = 1 << 0, 1 << 1
		noSetuidFixup, noSetuidLocked  = 1 << 2, 1 << 3
		keepCapsLocked                 = 1 << 5
		noAmbientRaise, noAmbientLockd = 1 << 6, 1 << 7
	)
	bits := noRoot | noRootLocked | noSetuidFixup | noSetuidLocked | keepCapsLocked | noAmbientRaise | noAmbientLockd
	if err := unix.Prctl(unix.PR_SET_SECUREBITS, uintptr(bits), 0, 0, 0); err != nil {
		return fmt.Errorf("setting securebits: %w", err)
	}
	return nil
}

// configFor returns the go-landlock configuration handling every right the
// kernel's ABI knows, so nothing the kernel can restrict is left open.
func configFor(abi int) landlock.Config {
	all := []landlock.Config{landlock.V1, landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5,
		landlock.V6, landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11}
	if abi >= len(all) {
		abi = len(all) - 1
	}
	return all[abi]
}
