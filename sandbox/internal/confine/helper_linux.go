//go:build linux

package confine

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// SystemDirs are bound read-only into every private root: the toolchain
// and its libraries. /sys, /run and /home are left out; a command that
// needs more is given it by [Policy.ReadOnly].
var SystemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix/store"}

// DevFiles are the only device nodes in a private /dev.
var DevFiles = []string{"null", "zero", "full", "random", "urandom", "tty"}

// Mount is one policy directory in the private root.
type Mount struct {
	Path string
	RO   bool
	// FD is the helper's descriptor of a detached idmapped mount to move
	// to Path; 0 means bind Path from the host.
	FD int
}

// HostID is the host uid and gid a confined command runs as when the
// calling process is root: 2^31-2^16, far above the ids distributions
// hand out (system and user ids, and the subordinate ranges of
// /etc/subuid that start at 100000) and below the 2^32-1 that means "no
// id". Inside its user namespace the command is uid 0 with every
// capability dropped; on the host it owns nothing, so root's 0600 files
// and /etc/shadow stay closed to it.
const HostID = 1<<31 - 1<<16

// CloneFlags are the namespaces every confined command gets.
const CloneFlags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID |
	syscall.CLONE_NEWNET | syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS | syscall.CLONE_NEWCGROUP

// ChildAttr returns the process attributes of a helper: fresh
// namespaces, the id mapping (uid and gid 0 inside are this process's
// own ids, or [HostID] when it is root), and death with its parent.
func ChildAttr() *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Cloneflags: CloneFlags, Pdeathsig: syscall.SIGKILL}
	uid, gid := os.Getuid(), os.Getgid()
	if os.Geteuid() == 0 {
		uid, gid = HostID, HostID
		// Root's supplementary groups would still open group-readable
		// files; setgroups is allowed because the parent is privileged.
		a.GidMappingsEnableSetgroups = true
		a.Credential = &syscall.Credential{Uid: 0, Gid: 0, Groups: []uint32{}}
	}
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: uid, Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: gid, Size: 1}}
	return a
}

// WarmArg, as argv[2] after [Arg], starts a helper ahead of its command:
// it waits for a [Request] on descriptor [WarmFD], a stream socket.
const WarmArg = "--await-request"

// WarmFD is the socket a helper started with [WarmArg] reads its
// [Request] from.
const WarmFD = 4

// MaxFDs is the most descriptors a [Request] may carry.
const MaxFDs = 64

// MaxRequest is the largest [Request], in bytes, a helper reads.
const MaxRequest = 16 << 20

// Request is what the parent sends a helper started ahead of its
// command: a 4-byte length in this machine's byte order, carrying the
// descriptors the spec names as SCM_RIGHTS, then that many bytes of this
// as [AppendRequest] encodes it. The spec numbers the descriptors as a
// helper started with them would have them ([Mount.FD], [Spec.ProxyFD]):
// the first sent is 4, 3 being the helper's own executable. The
// command's standard streams are the helper's own.
type Request struct {
	Spec Spec
	Argv []string
	Env  []string
}

// Spec is what the parent tells the helper: in argv[2], a [Request]
// holding only it, encoded by [AppendRequest] and then in hexadecimal
// (encoding/base64 would cost every helper's start its initialisation),
// or in the [Request] a helper started ahead reads. It
// carries paths, flags and descriptor numbers, never anything secret.
type Spec struct {
	Mounts  []Mount
	Dir     string
	RW      []string
	RO      []string
	Network bool
	ProxyFD int
	// HelperEnv is how many entries at the start of the helper's
	// environment are the helper's own (GOMAXPROCS=1: one thread runs
	// its Go code, so the runtime starts fewer threads, each of which
	// Landlock must restrict), not the command's.
	HelperEnv int
	// Env are the command's own entries for the names of the helper's
	// (the parent leaves them out of the environment, where os/exec
	// would keep them over the helper's), added back for the command.
	Env []string
	// BPF is the seccomp filter's instructions (see FilterBytes).
	BPF []byte
}

func envValue(env []string, name string) string {
	for _, kv := range slices.Backward(env) {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			return v
		}
	}
	return ""
}

// RunIfRequested confines and runs the command when this process
// was started by the sandbox's Command (os.Args[1] is [Arg]); otherwise
// it returns at once. The helper is the first process of the command's
// PID namespace: it builds the private root, starts the command, forwards
// signals to it, reaps every orphan, and exits with the command's status,
// at which the kernel kills whatever the command left behind. It never
// returns; on a setup failure it prints the reason and exits with status
// 126, the shell's "cannot execute", so nothing runs unconfined.
func RunIfRequested() { RunIfRequestedAfter(Entry{}) }

// RunIfRequestedAfter is [RunIfRequested] in a helper whose entry point
// may have made its namespaces already: what it did is e, and e.Check,
// when set, says whether that left this process as it must be.
func RunIfRequestedAfter(e Entry) {
	if len(os.Args) < 2 || os.Args[1] != Arg {
		return
	}
	// Capabilities, no_new_privs and the seccomp filter are per thread;
	// the command is started from this one.
	runtime.LockOSThread()
	code, err := runHelper(os.Args[2:], e)
	if err != nil {
		fmt.Fprintf(os.Stderr, "sandbox: %v\n", err)
		os.Exit(126)
	}
	os.Exit(code)
}

func runHelper(args []string, e Entry) (int, error) {
	if len(args) == 1 && args[0] == UnshareArg {
		// Go runs here only when the entry point failed, or is missing:
		// the checks below say which.
		if !e.Ran {
			// Linked without the entry point: the parent starts a
			// helper the other way.
			Sendmsg(WarmFD, []byte{'n'}, nil)
			return 0, nil
		}
		if e.Check == nil {
			return 0, errors.New("making its namespaces: nothing checks what its entry point did")
		}
		if err := e.Check(); err != nil {
			return 0, err
		}
		args = []string{WarmArg}
	}
	if len(args) == 1 && args[0] == WarmArg {
		if err := hello(WarmFD); err != nil {
			return 0, err
		}
		// What needs no spec is done while the parent prepares it, or
		// while this helper waits for a command.
		ns, err := setupNamespaces()
		if err != nil {
			return 0, err
		}
		spec, argv, env, err := receive(WarmFD)
		if err != nil {
			return 0, err
		}
		code, err := runConfined(ns, spec, argv, env)
		if err == nil {
			report(WarmFD, code)
		}
		return code, err
	}
	if len(args) < 3 || args[1] != "--" {
		return 0, errors.New("helper started with malformed arguments")
	}
	b, err := hex.DecodeString(args[0])
	if err != nil {
		return 0, fmt.Errorf("helper policy: %w", err)
	}
	req, err := DecodeRequest(b)
	if err != nil {
		return 0, fmt.Errorf("helper policy: %w", err)
	}
	spec := req.Spec
	argv := args[2:]
	env := os.Environ()
	if spec.HelperEnv > len(env) {
		return 0, errors.New("helper started with malformed arguments: fewer environment entries than its own")
	}
	env = append(env[spec.HelperEnv:], spec.Env...)
	ns, err := setupNamespaces()
	if err != nil {
		return 0, err
	}
	return runConfined(ns, &spec, argv, env)
}

// report tells the parent, on the socket fd, the command's status: 4
// bytes in this machine's byte order, once its output is all written and
// this process's standard streams closed. The parent's wait then ends
// without waiting for this process's exit, in which the kernel takes
// down the namespaces, a millisecond or so.
func report(fd, code int) {
	unix.Close(1)
	unix.Close(2)
	var b [4]byte
	binary.NativeEndian.PutUint32(b[:], uint32(code))
	Sendmsg(fd, b[:], nil)
}

// namespaces is what [setupNamespaces] made.
type namespaces struct {
	sigs     chan os.Signal
	notified chan struct{} // closed once sigs is notified
}

// setupNamespaces does in the helper's namespaces what no spec changes:
// it checks the helper is the first process of its PID namespace, names
// the host, brings up loopback, starts taking the signals it forwards to
// the command, and builds the system part of the private root
// ([buildSystemRoot]).
func setupNamespaces() (*namespaces, error) {
	if os.Getpid() != 1 {
		return nil, errors.New("the helper is not the first process of a new PID namespace")
	}
	// The first signal.Notify starts the runtime's signal thread and
	// waits for it, some hundreds of microseconds on a busy machine; it
	// does so while the root is built. A signal that arrives before the
	// command starts is forwarded as soon as it has.
	ns := &namespaces{sigs: make(chan os.Signal, 8), notified: make(chan struct{})}
	go func() {
		signal.Notify(ns.sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2)
		close(ns.notified)
	}()
	if err := unix.Sethostname([]byte("sandbox")); err != nil {
		return nil, fmt.Errorf("hostname: %w", err)
	}
	if err := loopbackUp(); err != nil {
		return nil, fmt.Errorf("loopback: %w", err)
	}
	if err := buildSystemRoot(); err != nil {
		return nil, fmt.Errorf("private root: %w", err)
	}
	return ns, nil
}

// hello tells the parent, on the socket fd, that this helper has started:
// one byte, carrying its user namespace, the namespace an idmapped mount
// of a directory root owns needs (it maps 0 to [HostID]) when the parent
// is root.
func hello(fd int) error {
	ns, err := unix.Open("/proc/self/ns/user", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("opening its user namespace: %w", err)
	}
	defer unix.Close(ns)
	if _, err := Sendmsg(fd, []byte{1}, unix.UnixRights(ns)); err != nil {
		return fmt.Errorf("telling its parent it started: %w", err)
	}
	return nil
}

// receive reads, in a helper started ahead of its command (argv[2] is
// [WarmArg]), the [Request] its parent sends on the socket fd, with the
// descriptors it names, and makes the spec's descriptor numbers the ones
// they arrived as. Until the request comes, the helper has done only
// what no command changes (see [setupNamespaces]).
func receive(fd int) (*Spec, []string, []string, error) {
	var head [4]byte
	oob := make([]byte, unix.CmsgSpace(4*MaxFDs))
	n, oobn, err := Recvmsg(fd, head[:], oob)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("receiving the command: %w", err)
	}
	if n == 0 {
		// The parent closed the socket: it never had a command for this
		// helper (it exited, or closed the sandbox).
		os.Exit(0)
	}
	fds, err := ReceivedFDs(oob[:oobn])
	if err != nil {
		return nil, nil, nil, fmt.Errorf("receiving the command's descriptors: %w", err)
	}
	f := os.NewFile(uintptr(fd), "request")
	if n < len(head) {
		if _, err := io.ReadFull(f, head[n:]); err != nil {
			return nil, nil, nil, fmt.Errorf("receiving the command: %w", err)
		}
	}
	size := binary.NativeEndian.Uint32(head[:])
	if size > MaxRequest {
		return nil, nil, nil, fmt.Errorf("receiving the command: a request of %d bytes is over the %d a helper reads", size, MaxRequest)
	}
	body := make([]byte, size)
	if _, err := io.ReadFull(f, body); err != nil {
		return nil, nil, nil, fmt.Errorf("receiving the command: %w", err)
	}
	req, err := DecodeRequest(body)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("helper policy: %w", err)
	}
	if len(req.Argv) == 0 {
		return nil, nil, nil, errors.New("helper given a malformed request: no command")
	}
	// The spec numbers descriptors as a helper started with them would
	// have them: 3 is its executable, never sent; the first sent is 4.
	at := func(i int) (int, error) {
		if i < 4 || i-4 >= len(fds) {
			return 0, fmt.Errorf("helper given a malformed request: descriptor %d of %d", i, len(fds))
		}
		return fds[i-4], nil
	}
	for i := range req.Spec.Mounts {
		if req.Spec.Mounts[i].FD > 0 {
			if req.Spec.Mounts[i].FD, err = at(req.Spec.Mounts[i].FD); err != nil {
				return nil, nil, nil, err
			}
		}
	}
	if req.Spec.ProxyFD > 0 {
		if req.Spec.ProxyFD, err = at(req.Spec.ProxyFD); err != nil {
			return nil, nil, nil, err
		}
	}
	return &req.Spec, req.Argv, req.Env, nil
}

// runConfined builds the command's confinement around this process and
// runs argv in it with env, returning its exit status.
func runConfined(ns *namespaces, spec *Spec, argv, env []string) (int, error) {
	// Nothing the parent passed (the helper's own executable, the proxy's
	// socket) may reach the command.
	if err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err != nil {
		return 0, fmt.Errorf("close_range: %w", err)
	}
	filter, err := FilterFrom(spec.BPF)
	if err != nil {
		return 0, err
	}
	if err := finishRoot(spec); err != nil {
		return 0, fmt.Errorf("private root: %w", err)
	}
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
	if err := applyLandlock(spec); err != nil {
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
	<-ns.notified
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{
		Dir: spec.Dir, Env: env, Files: stdio,
		// A session of its own has no controlling terminal, so /dev/tty
		// cannot reach the keystrokes meant for an approval prompt.
		Sys: &syscall.SysProcAttr{Setsid: true},
	})
	if err != nil {
		return 0, fmt.Errorf("%s: %w", argv[0], err)
	}
	// Signals are forwarded from this thread, in the command's Landlock
	// domain (a signal scoped by Landlock, ABI 6 and later, reaches the
	// processes of the sender's domain); children are reaped on another
	// thread meanwhile.
	exits := make(chan reaped, 1)
	go reap(pid, exits)
	for {
		var e reaped
		select {
		case sig := <-ns.sigs:
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
	// os/exec's words, from a helper that does not link it.
	return "", fmt.Errorf("%s: executable file not found in $PATH", name)
}

// applyLandlock restricts the calling thread, which the caller has locked
// and starts the command from, to the paths of the private root.
func applyLandlock(spec *Spec) error {
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
		landlock.RWFiles(prefixAll("/dev/", DevFiles)...).IgnoreIfMissing(),
	}
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return fmt.Errorf("applying landlock: %w", err)
	}
	if fd < 0 {
		// configFor handles every right the ABI knows: never empty.
		return errors.New("applying landlock: the ruleset restricts nothing")
	}
	defer unix.Close(fd)
	// This thread only: the command is started from it and inherits its
	// domain. Restricting every thread (go-landlock's Restrict, through
	// psx below ABI 8) signals each of them and waits, a millisecond of
	// every command's start, and confines nothing the command can reach:
	// the helper's other threads run only its own code, and a task in a
	// domain can neither ptrace nor signal one outside it.
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if err := llsys.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("applying landlock: landlock_restrict_self: %w", err)
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

// FilterBytes is filter as the kernel reads it: each instruction's
// code, jt, jf and k in this machine's byte order, 8 bytes apiece.
func FilterBytes(filter []unix.SockFilter) []byte {
	b := make([]byte, 0, 8*len(filter))
	for _, in := range filter {
		b = binary.NativeEndian.AppendUint16(b, in.Code)
		b = append(b, in.Jt, in.Jf)
		b = binary.NativeEndian.AppendUint32(b, in.K)
	}
	return b
}

// FilterFrom reads back what FilterBytes wrote. The helper installs the
// filter its parent generated once rather than generate it per command;
// a spec without one is refused, so no command runs unfiltered.
func FilterFrom(b []byte) ([]unix.SockFilter, error) {
	if len(b) == 0 || len(b)%8 != 0 || len(b)/8 > 4096 {
		return nil, fmt.Errorf("the helper was given no usable seccomp filter (%d bytes)", len(b))
	}
	filter := make([]unix.SockFilter, len(b)/8)
	for i := range filter {
		in := b[8*i:]
		filter[i] = unix.SockFilter{Code: binary.NativeEndian.Uint16(in), Jt: in[2], Jf: in[3], K: binary.NativeEndian.Uint32(in[4:])}
	}
	return filter, nil
}

// installSeccomp sets no_new_privs and installs the filter on the calling
// thread only; the caller has locked its goroutine to the thread and
// starts the command from it, so the command inherits the filter.
func installSeccomp(filter []unix.SockFilter) error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&prog)), 0, 0); err != nil {
		return fmt.Errorf("installing the seccomp filter: %w", err)
	}
	runtime.KeepAlive(filter)
	return nil
}

// startForwarder runs in the helper: it listens on 127.0.0.1 inside the
// command's network namespace and hands each connection to the parent's
// proxy over fd. It returns the port. It uses the system calls rather
// than package net, which the helper would otherwise link, and
// initialise, for this alone.
func startForwarder(fd int) (int, error) {
	ln, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return 0, err
	}
	if err := unix.Bind(ln, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		unix.Close(ln)
		return 0, err
	}
	if err := unix.Listen(ln, 64); err != nil {
		unix.Close(ln)
		return 0, err
	}
	port, err := localPort(ln)
	if err != nil {
		unix.Close(ln)
		return 0, err
	}
	// Accept blocks this goroutine's thread; the helper lives as long as
	// the command, and the kernel closes the listener with it.
	go func() {
		for {
			c, err := accept(ln)
			if err == unix.EINTR || err == unix.ECONNABORTED {
				continue
			}
			if err != nil {
				return
			}
			unix.Sendmsg(fd, []byte{0}, unix.UnixRights(c), nil, 0)
			unix.Close(c)
		}
	}()
	return port, nil
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
