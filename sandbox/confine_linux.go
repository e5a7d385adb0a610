//go:build linux

package sandbox

import (
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/joshbot/joshbot/sandbox/internal/confine"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// hostID is the host uid and gid a confined command runs as when the
// calling process is root (see [confine.HostID]).
const hostID = confine.HostID

// linuxMechanism is [Report.Mechanism] on Linux.
const linuxMechanism = "namespaces+seccomp+landlock"

// Probe reports each layer of the Linux sandbox: user, mount, PID,
// network, IPC and UTS namespaces (tried by starting a process in them),
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
	// As root, the namespaces probe leaves behind the user namespace the
	// idmap probe needs, so it comes first.
	r.Namespaces = probeNamespaces()
	r.Seccomp = probeSeccomp()
	if os.Geteuid() == 0 {
		r.IDMappedMounts = probeIDMap()
	} else {
		r.IDMappedMounts = Layer{Available: true, Detail: "not needed: commands run as this process's own uid " + fmt.Sprint(os.Getuid())}
	}
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
func childAttr() *syscall.SysProcAttr { return confine.ChildAttr() }

func probeNamespaces() Layer {
	const what = "user, mount, PID, network, IPC and UTS namespaces"
	if b, err := os.ReadFile("/proc/sys/user/max_user_namespaces"); err == nil && strings.TrimSpace(string(b)) == "0" {
		return Layer{Detail: what + " are unavailable: user.max_user_namespaces is 0 (raise it with sysctl)"}
	}
	if probeNamespacesStopped() == nil {
		return Layer{Available: true, Detail: what}
	}
	// This process may not trace (it is being traced itself, say): the
	// namespaces are tried with a program that runs to its end instead.
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

// probeNamespacesStopped creates a command's namespaces around this
// program, stopped by ptrace before its first instruction, and kills it:
// cheaper than running a program to its end. As root, the user namespace
// it made maps uid and gid 0 to [hostID], the very namespace an idmapped
// mount of a directory root owns needs, so it is kept for that.
func probeNamespacesStopped() error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	a := childAttr()
	a.Ptrace = true
	p, err := os.StartProcess("/proc/self/exe", []string{"sandbox-probe"}, &os.ProcAttr{Sys: a})
	if err != nil {
		return err
	}
	defer killReaping(p)
	if os.Geteuid() == 0 {
		if f, err := os.Open(fmt.Sprintf("/proc/%d/ns/user", p.Pid)); err == nil {
			keepUserns(owner{0, 0}, f)
		}
	}
	return nil
}

// platformState is what a Linux sandbox prepares on its first command.
type platformState struct {
	root bool
	once sync.Once
	// bpf is the seccomp filter, generated on the first command and
	// handed to every helper in its spec.
	bpf []byte
	err error
	// warm is the helper started ahead of the next command.
	warm warmState
	// noEntry is set once a helper said it has no entry point making
	// its namespaces (sandbox/helper.Entry).
	noEntry atomic.Bool
}

// prepare does nothing that costs: what commands need is made by
// [Sandbox.filter] and [Sandbox.idmapped] on the first command.
func (s *Sandbox) prepare() error {
	s.plat.root = os.Geteuid() == 0
	return nil
}

// filter returns the seccomp filter, generated once.
func (s *Sandbox) filter() ([]byte, error) {
	s.plat.once.Do(func() {
		f, err := seccompFilter()
		if err != nil {
			s.plat.err = fmt.Errorf("%w: %v", ErrUnsupported, err)
			return
		}
		s.plat.bpf = confine.FilterBytes(f)
	})
	return s.plat.bpf, s.plat.err
}

// mounts lists the policy's directories, parents before children.
func (s *Sandbox) mounts() []confine.Mount {
	var ms []confine.Mount
	for _, d := range s.policy.ReadOnly {
		ms = append(ms, confine.Mount{Path: d, RO: true})
	}
	ms = append(ms, confine.Mount{Path: s.policy.Workspace})
	for _, d := range s.policy.ReadWrite {
		ms = append(ms, confine.Mount{Path: d})
	}
	if s.policy.CacheDir != "" {
		ms = append(ms, confine.Mount{Path: s.policy.CacheDir})
	}
	// sort.SliceStable shares one instantiation with the rest of the
	// binary; slices.SortStableFunc would add one for this struct shape.
	sort.SliceStable(ms, func(i, j int) bool { return strings.Count(ms[i].Path, "/") < strings.Count(ms[j].Path, "/") })
	return ms
}

func (s *Sandbox) command(ctx context.Context, dir string, argv, env []string) (*exec.Cmd, func(), error) {
	p, err := s.prepareCommand(dir, env)
	if err == nil {
		err = s.openMounts(p)
	}
	if err != nil {
		p.cleanup()
		return nil, nil, err
	}
	spec, env := p.spec, p.env
	// The helper runs with GOMAXPROCS=1 of its own, first in its
	// environment; the command's own value, if any, goes in the spec, or
	// os/exec would keep it, the later one, over the helper's.
	spec.HelperEnv = 1
	for _, kv := range env {
		if strings.HasPrefix(kv, "GOMAXPROCS=") {
			spec.Env = []string{kv} // the last one, as os/exec keeps
		}
	}
	env = slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "GOMAXPROCS=") })
	b := confine.AppendRequest(nil, &confine.Request{Spec: *spec})
	args := append([]string{HelperArg, hex.EncodeToString(b), "--"}, argv...)
	cmd := exec.CommandContext(ctx, "/proc/self/fd/3", args...)
	cmd.Args[0] = s.helper
	// The helper starts in /, which any id may search; it changes to dir
	// once dir is mounted where its id owns it.
	cmd.Dir = "/"
	cmd.Env = append([]string{"GOMAXPROCS=1"}, env...)
	cmd.ExtraFiles = p.files
	cmd.SysProcAttr = childAttr()
	return cmd, p.cleanup, nil
}

// prepared is what a command needs beyond its helper.
type prepared struct {
	spec *confine.Spec
	env  []string
	// files[i] is the helper's descriptor 3+i: files[0] its executable,
	// which stays open with the sandbox, then the network proxy's socket
	// and the idmapped mounts, as the spec numbers them.
	files []*os.File
	stops []func()
}

// cleanup releases what p holds, once the command is done; a nil p holds
// nothing.
func (p *prepared) cleanup() {
	if p == nil {
		return
	}
	for _, f := range p.files[min(1, len(p.files)):] {
		f.Close()
	}
	for _, stop := range p.stops {
		stop()
	}
}

// prepareCommand makes what a command in dir needs beyond its helper,
// save the idmapped mounts a root process gives it ([Sandbox.openMounts]),
// whose descriptor numbers the spec holds already: the spec, the
// command's environment, the network proxy.
func (s *Sandbox) prepareCommand(dir string, env []string) (*prepared, error) {
	// The helper runs as an id that may not search the directories on
	// the way to the program (/root, a 0700 build directory), so it is
	// executed through a descriptor opened here, once per sandbox.
	exe, err := s.openHelper()
	if err != nil {
		return nil, err
	}
	p := &prepared{files: []*os.File{exe}}
	bpf, err := s.filter()
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	spec := &confine.Spec{Dir: dir, Network: s.policy.AllowNetwork, BPF: bpf}
	p.spec = spec
	if spec.Network {
		child, stop, err := startProxy(s.proxyAllow)
		if err != nil {
			return nil, fmt.Errorf("sandbox: network proxy: %w", err)
		}
		p.stops = append(p.stops, stop)
		p.files = append(p.files, child)
		spec.ProxyFD = 2 + len(p.files)
	}
	next := 3 + len(p.files)
	for _, m := range s.mounts() {
		if s.plat.root {
			m.FD = next
			next++
		}
		spec.Mounts = append(spec.Mounts, m)
		if m.RO {
			spec.RO = append(spec.RO, m.Path)
		} else {
			spec.RW = append(spec.RW, m.Path)
		}
	}
	spec.RW = append(spec.RW, "/tmp", "/dev/shm")
	spec.RO = append(append(spec.RO, confine.SystemDirs...), "/proc", "/dev")

	cache := "/tmp/cache"
	if s.policy.CacheDir != "" {
		cache = s.policy.CacheDir
	}
	env = setEnv(env, append(cacheEnv(cache), "TMPDIR=/tmp")...)
	if home := envValue(env, "HOME"); home == "" || !s.visible(home) {
		env = setEnv(env, "HOME=/tmp")
	}
	p.env = env
	return p, nil
}

// openMounts opens, as root, the idmapped mount of each directory of p's
// spec, in the descriptor numbers [Sandbox.prepareCommand] gave them.
func (s *Sandbox) openMounts(p *prepared) error {
	for _, m := range p.spec.Mounts {
		if m.FD == 0 {
			continue
		}
		f, err := s.idmapped(m.Path, m.RO)
		if err != nil {
			return fmt.Errorf("sandbox: %w: idmapped mounts: %v; a root process runs commands as an unprivileged id, which needs an idmapped mount of each directory the policy grants (Linux 5.12 or later, and a filesystem that supports them)", ErrUnsupported, err)
		}
		p.files = append(p.files, f)
		if m.FD != 2+len(p.files) {
			return fmt.Errorf("sandbox: internal error: mount %s numbered %d, opened as %d", m.Path, m.FD, 2+len(p.files))
		}
	}
	return nil
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
func RunHelperIfRequested() { confine.RunIfRequested() }
