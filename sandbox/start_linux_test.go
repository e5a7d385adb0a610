//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestCorpusThroughPrestart re-runs the confinement corpus (the Landlock,
// seccomp and isolation tests, unchanged) with every command going
// through Sandbox.Start, each given a helper Prestart started (runCmd
// fails a test whose command was not): each must pass the same.
func TestCorpusThroughPrestart(t *testing.T) {
	if throughStart {
		t.Skip("already running through Start")
	}
	needIsolation(t)
	pd := probeDir(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"TestLandlockConfinesFilesAndNetwork", "TestSeccompFilterDecisions", "TestIsolationDevices", "TestIsolationNetwork",
		"TestIsolationUnixSockets", "TestIsolationMetadata", "TestIsolationPersistence", "TestIsolationIdentity",
		"TestIsolationEscapeSyscalls", "TestIsolationPlantedSymlink", "TestDedicatedHelperRunsCommands"}
	cmd := exec.Command(exe, "-test.run", "^("+strings.Join(names, "|")+")$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), startEnv+"=1", probeDirEnv+"="+pd)
	out, err := cmd.CombinedOutput()
	if err != nil || bytes.Contains(out, []byte("--- SKIP")) {
		t.Fatalf("the corpus through Start: %v\n%s", err, out)
	}
	for _, n := range names {
		if !bytes.Contains(out, []byte("--- PASS: "+n+" ")) {
			t.Fatalf("%s did not pass through Start:\n%s", n, out)
		}
	}
	t.Logf("%d cases passed through Start", bytes.Count(out, []byte("--- PASS: ")))
}

// startIn starts script under /bin/sh through Start in sb's workspace.
func startIn(t *testing.T, ctx context.Context, sb *Sandbox, script string, out *syncBuffer) *Process {
	t.Helper()
	p, err := sb.Start(ctx, &Cmd{Dir: sb.Policy().Workspace, Args: []string{"/bin/sh", "-c", script}, Env: ChildEnv(os.Environ(), nil), Output: out})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// prestarted starts sb's helper ahead and returns it once it said it
// started.
func prestarted(tb testing.TB, sb *Sandbox) *warmHelper {
	tb.Helper()
	sb.Prestart()
	sb.plat.warm.mu.Lock()
	w := sb.plat.warm.next
	sb.plat.warm.mu.Unlock()
	<-w.ready
	if w.err != nil {
		tb.Fatal(w.err)
	}
	return w
}

// syncBuffer is a bytes.Buffer safe to read while a command writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestStartStatusAndOutput(t *testing.T) {
	needIsolation(t)
	sb, err := New(&Policy{Workspace: t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	for _, tt := range []struct {
		name, script, out string
		code              int
		prestart          bool
	}{
		{"exit code, streams in order", "echo one; echo two >&2; echo three; exit 3", "one\ntwo\nthree\n", 3, true},
		{"no helper waiting", "echo cold", "cold\n", 0, false},
		{"killed by a signal", "kill -KILL $$", "", 128 + 9, true},
		{"no output", "true", "", 0, true},
		{"the helper's own environment stays its own", `echo "${GOMAXPROCS-unset}"`, "unset\n", 0, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.prestart {
				sb.Prestart()
			}
			before := prestartedTaken.Load()
			var out syncBuffer
			code, err := startIn(t, context.Background(), sb, tt.script, &out).Wait()
			if err != nil || code != tt.code || out.String() != tt.out {
				t.Fatalf("got exit %d, %v, output %q; want exit %d, output %q", code, err, out.String(), tt.code, tt.out)
			}
			if took := prestartedTaken.Load() > before; took != tt.prestart {
				t.Fatalf("took a prestarted helper: %v, want %v", took, tt.prestart)
			}
		})
	}
}

// TestStartSetupFailure: a command the helper cannot confine (its
// directory is outside the private root) is not run, and Wait says so
// with status 126 and the reason in the output.
func TestStartSetupFailure(t *testing.T) {
	needIsolation(t)
	sb, err := New(&Policy{Workspace: t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	sb.Prestart()
	var out syncBuffer
	p, err := sb.Start(context.Background(), &Cmd{Dir: "/nonexistent-" + t.Name(), Args: []string{"/bin/sh", "-c", "echo ran"}, Output: &out})
	if err != nil {
		t.Fatal(err)
	}
	code, err := p.Wait()
	if err != nil || code != 126 || !strings.Contains(out.String(), "sandbox:") || strings.Contains(out.String(), "ran") {
		t.Fatalf("got exit %d, %v, output %q; want 126 and the helper's reason", code, err, out.String())
	}
}

// TestStartContextKills: when the context ends, the command and what it
// started are killed, and Wait returns the context's error at once.
func TestStartContextKills(t *testing.T) {
	needIsolation(t)
	sb, err := New(&Policy{Workspace: t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	sb.Prestart()
	m := fmt.Sprintf("97%d", time.Now().UnixNano()%10000000)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	var out syncBuffer
	start := time.Now()
	code, err := startIn(t, ctx, sb, "sleep "+m+" & sleep "+m, &out).Wait()
	if !errors.Is(err, context.DeadlineExceeded) || code != -1 {
		t.Fatalf("got exit %d, %v; want the context's deadline", code, err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("Wait returned %v after the start", d)
	}
	noneLeft(t, "sleep "+m)
}

// TestStartSignal: Signal reaches the command through its helper.
func TestStartSignal(t *testing.T) {
	needIsolation(t)
	sb, err := New(&Policy{Workspace: t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	sb.Prestart()
	var out syncBuffer
	p := startIn(t, context.Background(), sb, "trap 'echo got TERM; exit 7' TERM; echo ready; while :; do sleep 0.05; done", &out)
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), "ready") {
		if time.Now().After(deadline) {
			t.Fatalf("the command never started: %q", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := p.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	code, err := p.Wait()
	if err != nil || code != 7 || !strings.Contains(out.String(), "got TERM") {
		t.Fatalf("got exit %d, %v, output %q; want the trap's 7", code, err, out.String())
	}
}

// TestStartConcurrent: commands started at once each get a helper of
// their own, one of them the prestarted one.
func TestStartConcurrent(t *testing.T) {
	needIsolation(t)
	sb, err := New(&Policy{Workspace: t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	sb.Prestart()
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var out syncBuffer
			p, err := sb.Start(context.Background(), &Cmd{Dir: sb.Policy().Workspace, Args: []string{"/bin/sh", "-c", fmt.Sprintf("echo %d", i)}, Output: &out})
			if err != nil {
				errs <- err
				return
			}
			if code, err := p.Wait(); err != nil || code != 0 || out.String() != fmt.Sprintf("%d\n", i) {
				errs <- fmt.Errorf("command %d: exit %d, %v, output %q", i, code, err, out.String())
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestStartAfterPrestartedHelperDied: a helper started ahead that died
// while it waited does not fail the command: one started then runs it.
func TestStartAfterPrestartedHelperDied(t *testing.T) {
	needIsolation(t)
	sb, err := New(&Policy{Workspace: t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	w := prestarted(t, sb)
	w.cmd.Process.Kill()
	w.cmd.Process.Wait()
	var out syncBuffer
	if code, err := startIn(t, context.Background(), sb, "echo still", &out).Wait(); err != nil || code != 0 || out.String() != "still\n" {
		t.Fatalf("exit %d, %v, output %q", code, err, out.String())
	}
}

// TestPrestartedHelperBuildsItsSystemRootWhileWaiting: a helper started
// ahead builds the part of the private root no command changes (up to a
// fresh /proc at /newroot/proc) before it is handed a command, so the
// command does not wait for it; the command then runs in the finished
// root.
func TestPrestartedHelperBuildsItsSystemRootWhileWaiting(t *testing.T) {
	needIsolation(t)
	sb, err := New(&Policy{Workspace: t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	w := prestarted(t, sb)
	mountinfo := fmt.Sprintf("/proc/%d/mountinfo", w.cmd.Process.Pid)
	if _, err := os.ReadFile(mountinfo); err != nil {
		t.Skipf("the waiting helper's mounts cannot be read from here: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err := os.ReadFile(mountinfo)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), " /newroot/proc ") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no /newroot/proc in the waiting helper's mounts after 10 s:\n%s", b)
		}
		time.Sleep(5 * time.Millisecond)
	}
	taken := prestartedTaken.Load()
	var out syncBuffer
	if code, err := startIn(t, context.Background(), sb, "test -d /proc/self && test ! -e /newroot && echo rooted", &out).Wait(); err != nil || code != 0 || out.String() != "rooted\n" {
		t.Fatalf("exit %d, %v, output %q", code, err, out.String())
	}
	if prestartedTaken.Load() == taken {
		t.Error("the command did not take the prestarted helper")
	}
}

// TestCloseStopsPrestartedHelper: Close ends the helper waiting for a
// command, and no later Prestart starts another; Start still works.
func TestCloseStopsPrestartedHelper(t *testing.T) {
	needIsolation(t)
	sb, err := New(&Policy{Workspace: t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	w := prestarted(t, sb)
	pid := w.cmd.Process.Pid
	sb.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the prestarted helper %d outlived Close", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
	sb.Prestart()
	sb.plat.warm.mu.Lock()
	next := sb.plat.warm.next
	sb.plat.warm.mu.Unlock()
	if next != nil {
		t.Fatal("Prestart started a helper after Close")
	}
	var out syncBuffer
	if code, err := startIn(t, context.Background(), sb, "echo after", &out).Wait(); err != nil || code != 0 || out.String() != "after\n" {
		t.Fatalf("Start after Close: exit %d, %v, output %q", code, err, out.String())
	}
}

// TestPrestartKeepsRootsUserns: as root, the user namespace the helper
// sends when it starts, which maps 0 to hostID, is kept for the idmapped
// mounts of directories root owns (the command below writes through
// one), so a command needs no process started for it: the namespace kept
// is the command's own.
func TestPrestartKeepsRootsUserns(t *testing.T) {
	needIsolation(t)
	if os.Geteuid() != 0 {
		t.Skip("idmapped mounts are made only by a root process")
	}
	// As a probe cache would spare it, no probe runs (as root, the probe
	// keeps the namespace it made).
	r := Probe()
	saved := probe
	probe = func() Report { return r }
	t.Cleanup(func() { probe = saved })
	for _, prestart := range []bool{true, false} {
		t.Run(fmt.Sprint("prestart=", prestart), func(t *testing.T) {
			forgetUsernses()
			sb, err := New(&Policy{Workspace: t.TempDir()}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer sb.Close()
			if prestart {
				sb.Prestart()
			}
			var out syncBuffer
			if code, err := startIn(t, context.Background(), sb, "echo ok > f && cat f && readlink /proc/self/ns/user", &out).Wait(); err != nil || code != 0 || !strings.HasPrefix(out.String(), "ok\nuser:[") {
				t.Fatalf("exit %d, %v, output %q", code, err, out.String())
			}
			usernses.mu.Lock()
			f := usernses.m[owner{0, 0}]
			usernses.mu.Unlock()
			if f == nil {
				t.Fatal("no user namespace kept for owner 0")
			}
			kept, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", f.Fd()))
			if want := strings.TrimPrefix(out.String(), "ok\n"); err != nil || kept+"\n" != want {
				t.Fatalf("kept %q (%v), want the command's own %q", kept, err, want)
			}
		})
	}
}
