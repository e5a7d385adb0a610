//go:build linux

package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
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
	spec, env, files, cleanup, err := s.prepareCommand(dir, env)
	if err != nil {
		return nil, nil, err
	}
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
	cmd.Env = append([]string{"GOMAXPROCS=1"}, env...)
	cmd.ExtraFiles = files
	cmd.SysProcAttr = childAttr()
	return cmd, cleanup, nil
}

// prepareCommand makes what a command in dir needs beyond its helper:
// the spec, the command's environment, and the descriptors the spec
// names, files[i] being descriptor 3+i (files[0] is the helper's
// executable, which stays open with the sandbox). cleanup releases the
// rest, and the network proxy, once the command is done.
func (s *Sandbox) prepareCommand(dir string, env []string) (spec *confine.Spec, _ []string, files []*os.File, cleanup func(), err error) {
	var stops []func()
	cleanup = func() {
		// files[0], the helper, is the sandbox's and stays open.
		for _, f := range files[min(1, len(files)):] {
			f.Close()
		}
		for _, stop := range stops {
			stop()
		}
	}
	fail := func(err error) (*confine.Spec, []string, []*os.File, func(), error) {
		cleanup()
		return nil, nil, nil, nil, err
	}
	// The helper runs as an id that may not search the directories on
	// the way to the program (/root, a 0700 build directory), so it is
	// executed through a descriptor opened here, once per sandbox.
	exe, err := s.openHelper()
	if err != nil {
		return nil, nil, nil, nil, err
	}
	files = append(files, exe)
	bpf, err := s.filter()
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("sandbox: %w", err)
	}
	spec = &confine.Spec{Dir: dir, Network: s.policy.AllowNetwork, BPF: bpf}
	for _, m := range s.mounts() {
		if s.plat.root {
			f, err := s.idmapped(m.Path, m.RO)
			if err != nil {
				return fail(fmt.Errorf("sandbox: %w: idmapped mounts: %v; a root process runs commands as an unprivileged id, which needs an idmapped mount of each directory the policy grants (Linux 5.12 or later, and a filesystem that supports them)", ErrUnsupported, err))
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
	spec.RO = append(append(spec.RO, confine.SystemDirs...), "/proc", "/dev")

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
			return fail(fmt.Errorf("sandbox: network proxy: %w", err))
		}
		stops = append(stops, stop)
		files = append(files, child)
		spec.ProxyFD = 2 + len(files)
	}
	return spec, env, files, cleanup, nil
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
