//go:build linux

package sandbox

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	goruntime "runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/joshbot/joshbot/sandbox/internal/confine"
	"golang.org/x/sys/unix"
)

// warmHelper is a helper started ahead of its command, in fresh
// namespaces, waiting on its socket for a [confine.Request].
type warmHelper struct {
	ready chan struct{} // closed once started, or failed to
	cmd   *exec.Cmd
	sock  *os.File // the parent's end
	// pidfd is the helper proper when an entry point made its namespaces
	// (cmd is then the process that forked it and relays its status);
	// -1 otherwise.
	pidfd int
	out   *laterWriter
	// copied is closed once the helper's output is copied to its end.
	copied chan struct{}
	err    error
}

// warmState is the helper a sandbox keeps started ahead of time.
type warmState struct {
	mu     sync.Mutex
	next   *warmHelper
	closed bool
	// exited are helpers that reported their command's status and are
	// exiting, reaped by the next launch or Close rather than by a
	// goroutine that would outlive Wait.
	exited []*warmHelper
}

// reapExited reaps the helpers that reported their command's status.
func (s *Sandbox) reapExited() {
	s.plat.warm.mu.Lock()
	exited := s.plat.warm.exited
	s.plat.warm.exited = nil
	s.plat.warm.mu.Unlock()
	for _, w := range exited {
		w.cmd.Wait()
	}
}

// Prestart starts, in the background, the helper the next [Sandbox.Start]
// will use, unless one is already waiting: the helper's own start (some
// milliseconds for a Go program) then overlaps whatever the caller does
// before its command, which runs in fresh namespaces all the same. The
// helper builds the part of the private root no command changes (the
// system directories, /tmp, /dev, /proc) and waits until it is given a
// command or the sandbox is closed; it dies with this process. Prestart
// does nothing on other systems, or once [Sandbox.Close] was called.
func (s *Sandbox) Prestart() {
	s.plat.warm.mu.Lock()
	defer s.plat.warm.mu.Unlock()
	if s.plat.warm.next != nil || s.plat.warm.closed {
		return
	}
	w := newWarmHelper()
	s.plat.warm.next = w
	go s.launch(w)
}

func newWarmHelper() *warmHelper { return &warmHelper{ready: make(chan struct{}), pidfd: -1} }

// Close stops the helper [Sandbox.Prestart] started, if it is still
// waiting, reaping it, and stops any later Prestart; it also reaps the
// helpers of commands that ended (which [Process.Wait] leaves to exit on
// their own; the next command's start reaps them too). Commands already
// started run on, and Start still works, starting a helper for each
// command. It always returns nil.
func (s *Sandbox) Close() error {
	s.plat.warm.mu.Lock()
	w := s.plat.warm.next
	s.plat.warm.next, s.plat.warm.closed = nil, true
	s.plat.warm.mu.Unlock()
	if w != nil {
		<-w.ready
		w.discard()
	}
	s.reapExited()
	return nil
}

// discard ends a helper that will not be given a command: closing its
// socket tells it so, and it exits.
func (w *warmHelper) discard() {
	if w.err != nil {
		return
	}
	w.sock.Close()
	w.cmd.Process.Kill()
	w.cmd.Wait()
	<-w.copied
	w.closePidfd()
}

func (w *warmHelper) closePidfd() {
	if w.pidfd >= 0 {
		unix.Close(w.pidfd)
		w.pidfd = -1
	}
}

// signal sends sig to the helper proper, which forwards it to the
// command; os.Kill kills the helper's starter too, and the helper dies
// with it.
func (w *warmHelper) signal(sig os.Signal) error {
	if w.pidfd < 0 || sig == os.Kill {
		return w.cmd.Process.Signal(sig)
	}
	n, ok := sig.(syscall.Signal)
	if !ok {
		return w.cmd.Process.Signal(sig) // refused there, as on any process
	}
	return unix.PidfdSendSignal(w.pidfd, n, nil, 0)
}

// launch starts w and closes w.ready once it said it started.
func (s *Sandbox) launch(w *warmHelper) {
	defer close(w.ready)
	s.reapExited()
	if entry := s.tryEntry(); s.spawn(w, entry) == errNoEntry {
		// Linked without the entry point: from now on helpers are
		// started in their namespaces.
		s.plat.noEntry.Store(true)
		w.discard()
		// Every field but ready, which the caller may be reading.
		w.cmd, w.sock, w.out, w.copied, w.err, w.pidfd = nil, nil, nil, nil, nil, -1
		s.spawn(w, false)
	}
}

// spawn starts w, for its entry point to make its namespaces when entry
// is set, and sets w.err if it did not start; it returns errNoEntry
// alone, for a helper without that entry point, which it leaves to
// [warmHelper.discard].
func (s *Sandbox) spawn(w *warmHelper, entry bool) error {
	exe, err := s.openHelper()
	if err != nil {
		w.err = err
		return nil
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		w.err = fmt.Errorf("sandbox: the helper's socket: %w", err)
		return nil
	}
	w.sock = os.NewFile(uintptr(fds[0]), "sandbox-helper")
	child := os.NewFile(uintptr(fds[1]), "sandbox-helper-child")
	cmd := exec.Command("/proc/self/fd/3", HelperArg, confine.WarmArg)
	cmd.SysProcAttr = childAttr()
	if entry {
		// The helper's entry point makes its namespaces: started
		// without any, it is started by vfork. It then confines and
		// supervises the command itself, the Go runtime never started.
		cmd.Args[2] = confine.UnshareArg
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	}
	cmd.Args[0] = s.helper
	cmd.Dir = "/"
	cmd.Env = []string{"GOMAXPROCS=1"}
	// One pipe for both streams keeps their order; what comes through it
	// goes where Start says once it has a command.
	r, pw, err := os.Pipe()
	if err != nil {
		w.sock.Close()
		child.Close()
		w.err = fmt.Errorf("sandbox: the helper's output: %w", err)
		return nil
	}
	w.out, w.copied = &laterWriter{}, make(chan struct{})
	go func() {
		io.Copy(w.out, r)
		r.Close()
		close(w.copied)
	}()
	cmd.Stdout, cmd.Stderr = pw, pw
	cmd.ExtraFiles = []*os.File{exe, child} // 3, and confine.WarmFD
	err = cmd.Start()
	child.Close()
	pw.Close()
	if err != nil {
		w.sock.Close()
		w.err = fmt.Errorf("sandbox: starting the helper: %w", err)
		return nil
	}
	w.cmd = cmd
	if entry {
		if err := s.mapEntered(w); err != nil {
			if err != errNoEntry {
				w.err = err
			}
			return err
		}
	}
	w.err = s.awaitHello(w)
	return nil
}

// tryEntry reports whether helpers are started for their entry point to
// make their namespaces (sandbox/helper.Entry): on linux/amd64, with a
// dedicated helper that has not said it lacks one.
func (s *Sandbox) tryEntry() bool {
	return goruntime.GOARCH == "amd64" && !s.selfHelper && !s.plat.noEntry.Load()
}

// errNoEntry is a helper's answer that it has no entry point making its
// namespaces.
var errNoEntry = errors.New("the helper has no entry point that makes its namespaces")

// mapEntered answers a helper whose entry point unshared its namespaces
// ([confine.UnshareArg]): it writes the helper's id maps, as os/exec
// would for a child it started in a new user namespace, lets it go on,
// and takes the pid of the helper proper, which the entry point forked
// to be the first process of the new PID namespace.
func (s *Sandbox) mapEntered(w *warmHelper) error {
	var b [4]byte
	n, err := w.sock.Read(b[:1])
	if err == nil && n == 1 && b[0] == 'n' {
		return errNoEntry
	}
	if err == nil && (n != 1 || b[0] != 'u') {
		err = fmt.Errorf("it said %q, not that it made its namespaces", b[:n])
	}
	if err == nil {
		err = writeIDMaps(w.cmd.Process.Pid)
	}
	if err == nil {
		_, err = w.sock.Write([]byte{'m'})
	}
	if err == nil {
		_, err = io.ReadFull(w.sock, b[:])
	}
	if err == nil {
		pid := int(binary.NativeEndian.Uint32(b[:]))
		// The helper cannot exit before its starter reaps it, which
		// the starter does only after it sent the pid: the pid is the
		// helper's while this runs.
		w.pidfd, err = unix.PidfdOpen(pid, 0)
	}
	if err != nil {
		return w.didNotStart(err)
	}
	return nil
}

// didNotStart discards w, which did not start, and returns the error that
// says why: err, and what the helper wrote before it ended.
func (w *warmHelper) didNotStart(err error) error {
	w.discard()
	err = fmt.Errorf("sandbox: the helper did not start: %v", err)
	if msg := strings.TrimSpace(w.out.early()); msg != "" {
		err = fmt.Errorf("%w: %s", err, msg)
	}
	return err
}

// writeIDMaps writes the id maps of the user namespace of process pid
// that [confine.ChildAttr] has os/exec write for a helper it starts in
// one, with setgroups denied unless ChildAttr allows it (a root parent,
// which drops the helper's groups).
func writeIDMaps(pid int) error {
	a := childAttr()
	dir := "/proc/" + strconv.Itoa(pid) + "/"
	if err := os.WriteFile(dir+"uid_map", idMap(a.UidMappings), 0); err != nil {
		return err
	}
	if !a.GidMappingsEnableSetgroups {
		if err := os.WriteFile(dir+"setgroups", []byte("deny"), 0); err != nil {
			return err
		}
	}
	return os.WriteFile(dir+"gid_map", idMap(a.GidMappings), 0)
}

// idMap is maps as a uid_map or gid_map file takes them.
func idMap(maps []syscall.SysProcIDMap) []byte {
	var b []byte
	for _, m := range maps {
		b = fmt.Appendf(b, "%d %d %d\n", m.ContainerID, m.HostID, m.Size)
	}
	return b
}

// awaitHello waits for the confining helper to say it started: one byte
// carrying its user namespace, which maps uid and gid 0 to [hostID], the
// very namespace an idmapped mount of a directory root owns needs, kept
// so that no process has to be started for it.
func (s *Sandbox) awaitHello(w *warmHelper) error {
	var b [1]byte
	oob := make([]byte, unix.CmsgSpace(4))
	n, oobn, err := confine.Recvmsg(int(w.sock.Fd()), b[:], oob)
	if err == nil && n == 0 {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return w.didNotStart(err)
	}
	// A descriptor that did not parse is not one; none is kept.
	fds, _ := confine.ReceivedFDs(oob[:oobn])
	for _, ns := range fds {
		if s.plat.root {
			keepUserns(owner{0, 0}, os.NewFile(uintptr(ns), "userns"))
		} else {
			unix.Close(ns)
		}
	}
	return nil
}

// start is [Sandbox.Start] on Linux: it hands c to a helper started ahead
// of it, or to one it starts, in the background, before it prepares what
// the command needs, with the descriptors its spec names.
func (s *Sandbox) start(ctx context.Context, c *Cmd) (*Process, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.plat.warm.mu.Lock()
	w := s.plat.warm.next
	s.plat.warm.next = nil
	s.plat.warm.mu.Unlock()
	prestarted := w != nil
	if prestarted {
		prestartedTaken.Add(1)
	} else {
		w = newWarmHelper()
		go s.launch(w)
	}
	p, err := s.prepareCommand(c.Dir, c.Env)
	<-w.ready
	switch {
	case w.err != nil:
		p.cleanup()
		return nil, w.err
	case err != nil:
		w.discard()
		return nil, err
	}
	// The idmapped mounts of a root process need the user namespace the
	// helper sent once it started.
	if err := s.openMounts(p); err != nil {
		p.cleanup()
		w.discard()
		return nil, err
	}
	// files[0], the helper's executable, is descriptor 3 of a helper
	// Command starts; this one runs already, and is sent the rest.
	body := confine.AppendRequest(nil, &confine.Request{Spec: *p.spec, Argv: c.Args, Env: p.env})
	if prestarted && w.starterGone() {
		// Its helper proper was sent SIGKILL as the starter died, and
		// may not have closed its socket yet: what it is sent would be
		// lost.
		err = errStarterGone
	} else {
		err = w.send(body, p.files[1:])
	}
	if err != nil && prestarted {
		// The helper started ahead died while it waited (killed, or its
		// parent thread gone, which Pdeathsig takes for its parent): one
		// started now takes the command.
		w.discard()
		w = newWarmHelper()
		s.launch(w)
		if err = w.err; err == nil {
			err = w.send(body, p.files[1:])
		}
	}
	for _, f := range p.files[1:] {
		f.Close()
	}
	p.files = p.files[:1]
	if err != nil {
		p.cleanup()
		w.discard()
		if msg := strings.TrimSpace(w.out.early()); msg != "" {
			err = fmt.Errorf("%w: %s", err, msg)
		}
		return nil, fmt.Errorf("sandbox: handing the command to its helper: %w", err)
	}
	w.out.attach(c.Output)
	stop := context.AfterFunc(ctx, func() { w.cmd.Process.Kill() })
	proc := &Process{signal: w.signal}
	proc.wait = func() (int, error) {
		defer p.cleanup()
		defer w.closePidfd()
		// The helper reports the command's status once its output is
		// all written, before it exits and the kernel takes down its
		// namespaces; it is reaped meanwhile.
		var b [4]byte
		_, err := io.ReadFull(w.sock, b[:])
		w.sock.Close()
		if err == nil && ctx.Err() == nil {
			stop()
			s.plat.warm.mu.Lock()
			s.plat.warm.exited = append(s.plat.warm.exited, w)
			s.plat.warm.mu.Unlock()
			waitCopied(w.copied)
			return int(int32(binary.NativeEndian.Uint32(b[:]))), nil
		}
		err = w.cmd.Wait()
		stop()
		waitCopied(w.copied)
		return exitStatus(ctx, err, w.cmd.ProcessState)
	}
	return proc, nil
}

// errStarterGone is a prestarted helper's starter found dead.
var errStarterGone = errors.New("the helper's starter has exited")

// starterGone reports whether w's starter (w.cmd: the process an entry
// point forked the helper proper from, or the helper itself) has exited,
// without reaping it. When an entry point's starter exits, the helper
// proper gets SIGKILL (its Pdeathsig) at once, though it may not yet have
// died and closed its socket, so a request sent then would be lost where
// the Go helper's death makes the send fail.
func (w *warmHelper) starterGone() bool {
	var info unix.Siginfo
	err := unix.Waitid(unix.P_PID, w.cmd.Process.Pid, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
	// ECHILD: reaped already, by whoever waited for it. With WNOHANG and
	// nothing to report, Linux fills info with zeros; an exited child's
	// is SIGCHLD's.
	return err == unix.ECHILD || err == nil && info.Signo != 0
}

// waitCopied waits up to [outputGrace] for a helper's output to be
// copied to the end.
func waitCopied(copied <-chan struct{}) {
	t := time.NewTimer(outputGrace)
	defer t.Stop()
	select {
	case <-copied:
	case <-t.C:
	}
}

// send writes body, framed as [confine.Request] says, with files as its
// descriptors.
func (w *warmHelper) send(body []byte, files []*os.File) error {
	if len(files) > confine.MaxFDs {
		return fmt.Errorf("%d descriptors, over the %d a helper takes", len(files), confine.MaxFDs)
	}
	if len(body) > confine.MaxRequest {
		return fmt.Errorf("a request of %d bytes, over the %d a helper reads", len(body), confine.MaxRequest)
	}
	var oob []byte
	if len(files) > 0 {
		fds := make([]int, len(files))
		for i, f := range files {
			fds[i] = int(f.Fd())
		}
		oob = unix.UnixRights(fds...)
	}
	msg := make([]byte, 4, 4+len(body))
	binary.NativeEndian.PutUint32(msg, uint32(len(body)))
	msg = append(msg, body...)
	for len(msg) > 0 {
		n, err := confine.Sendmsg(int(w.sock.Fd()), msg, oob)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		msg, oob = msg[n:], nil
	}
	return nil
}

// laterWriter is a helper's output: until [laterWriter.attach] names
// where it goes, it keeps the first KiB (a helper that fails before its
// command says why), and after, it writes there.
type laterWriter struct {
	mu       sync.Mutex
	to       io.Writer
	attached bool
	kept     []byte
}

func (l *laterWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.attached {
		if l.to == nil {
			return len(p), nil
		}
		return l.to.Write(p)
	}
	if room := 1<<10 - len(l.kept); room > 0 {
		l.kept = append(l.kept, p[:min(len(p), room)]...)
	}
	return len(p), nil
}

// attach sends what follows to w (nil: nowhere).
func (l *laterWriter) attach(w io.Writer) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.to, l.attached, l.kept = w, true, nil
}

// early returns what was written before attach; nothing for the nil
// writer of a helper that failed before its output was set up.
func (l *laterWriter) early() string {
	if l == nil {
		return ""
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return string(l.kept)
}
