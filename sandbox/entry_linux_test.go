package sandbox

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// noEntryHelper builds testdata/helper without its entry point.
func noEntryHelper(t testing.TB) (path, id string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "helper")
	os.Chmod(filepath.Dir(p), 0o755)
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", p, "./testdata/helper")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the helper: %v\n%s", err, out)
	}
	return p, goToolBuildID(p)
}

// A dedicated helper linked with helper.Entry makes its own namespaces:
// the helper proper is not this process's child but the child of the
// process Entry forked it from, it runs commands confined as ever, and a
// signal reaches the command through it.
func TestEntryMakesTheHelpersNamespaces(t *testing.T) {
	if goruntime.GOARCH != "amd64" {
		t.Skip("helper.Entry exists on linux/amd64 only")
	}
	needIsolation(t)
	if os.Getenv(helperEnv) != "" {
		t.Skip("the corpus run through the dedicated helper")
	}
	path, id := dedicatedHelper(t)
	sb, err := New(&Policy{Workspace: t.TempDir()}, &Options{Helper: path, HelperBuildID: id})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	w := prestarted(t, sb)
	if w.pidfd < 0 {
		t.Fatal("the helper was started in its namespaces, not by its entry point")
	}
	pid, err := pidOf(w.pidfd)
	if err != nil {
		t.Fatal(err)
	}
	if ppid := parentOf(t, pid); ppid != w.cmd.Process.Pid {
		t.Fatalf("the helper's parent is %d, want the entry's process %d", ppid, w.cmd.Process.Pid)
	}
	r, pw := io.Pipe()
	defer r.Close()
	script := `trap 'echo got TERM; exit 7' TERM; echo ready; id -u; while :; do sleep 0.02; done`
	p, err := sb.Start(context.Background(), &Cmd{Dir: sb.Policy().Workspace, Args: []string{"/bin/sh", "-c", script}, Env: ChildEnv(os.Environ(), nil), Output: pw})
	if err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	buf := make([]byte, 64)
	for !strings.Contains(got.String(), "ready\n0\n") {
		n, err := r.Read(buf)
		if err != nil {
			t.Fatalf("output %q: %v", got.String(), err)
		}
		got.Write(buf[:n])
	}
	if err := p.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	go io.Copy(&got, r)
	code, err := p.Wait()
	pw.Close()
	if err != nil || code != 7 {
		t.Fatalf("after SIGTERM: exit %d, %v; want the trap's 7", code, err)
	}
	if sb.plat.noEntry.Load() {
		t.Fatal("the sandbox took the helper for one without an entry point")
	}
	// The helper dies with the process it was forked from, which is
	// what killing a command kills (its ids changed after it asked to).
	w = prestarted(t, sb)
	w.cmd.Process.Kill()
	fds := []unix.PollFd{{Fd: int32(w.pidfd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, 3000)
	for err == unix.EINTR {
		n, err = unix.Poll(fds, 3000)
	}
	if n != 1 || err != nil {
		t.Fatalf("the helper outlived the process it was forked from by 3 s (%d, %v)", n, err)
	}
}

// A dedicated helper linked without helper.Entry says so; the sandbox then
// starts that helper, and every later one, in its namespaces, and the
// command runs.
func TestHelperWithoutEntryStillRunsCommands(t *testing.T) {
	if goruntime.GOARCH != "amd64" {
		t.Skip("helper.Entry exists on linux/amd64 only")
	}
	needIsolation(t)
	if os.Getenv(helperEnv) != "" {
		t.Skip("the corpus run through the dedicated helper")
	}
	path, id := noEntryHelper(t)
	sb, err := New(&Policy{Workspace: t.TempDir()}, &Options{Helper: path, HelperBuildID: id})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	for i := range 2 {
		var out syncBuffer
		p, err := sb.Start(context.Background(), &Cmd{Dir: sb.Policy().Workspace, Args: []string{"/bin/sh", "-c", "echo pid $$"}, Env: ChildEnv(os.Environ(), nil), Output: &out})
		if err != nil {
			t.Fatal(err)
		}
		// A shell in a fresh PID namespace has one of its first pids.
		code, err := p.Wait()
		n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(out.String(), "pid ")))
		if err != nil || code != 0 || n < 2 || n > 20 {
			t.Fatalf("command %d: exit %d, %v, output %q; want the shell's pid in its own namespace", i, code, err, out.String())
		}
		if !sb.plat.noEntry.Load() {
			t.Fatal("the sandbox did not learn the helper has no entry point")
		}
	}
}

// pidOf returns the pid a pidfd refers to.
func pidOf(pidfd int) (int, error) {
	b, err := os.ReadFile("/proc/self/fdinfo/" + strconv.Itoa(pidfd))
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "Pid:"); ok {
			return strconv.Atoi(strings.TrimSpace(v))
		}
	}
	return 0, os.ErrNotExist
}

// parentOf returns the parent of process pid.
func parentOf(t *testing.T, pid int) int {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err == nil {
			f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
			ppid, _ := strconv.Atoi(f[1])
			return ppid
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
