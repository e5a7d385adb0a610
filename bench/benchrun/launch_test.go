package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

func TestParseLaunch(t *testing.T) {
	u, err := parseLaunch("1532 174 1532550 756 0\n")
	if err != nil {
		t.Fatal(err)
	}
	if u != (launchUsage{maxRSSKiB: 1532, minflt: 174, wallNS: 1532550, launcherKiB: 756}) {
		t.Errorf("parseLaunch = %+v", u)
	}
	if _, err := parseLaunch(""); err == nil {
		t.Error("an empty report parsed")
	}
}

// TestMeasureIsTheProgramsOwnPeak runs the empty Go program through the
// launcher and checks that its peak RSS is its own: below this test
// process's peak, which a child started directly by os/exec inherits
// (also checked here, as the reason for the launcher).
func TestMeasureIsTheProgramsOwnPeak(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("peak RSS is read the Linux way")
	}
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler for the launcher")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	launcher, floor := filepath.Join(dir, "launch"), filepath.Join(dir, "floor")
	if err := buildLauncher(root, launcher); err != nil {
		t.Fatal(err)
	}
	// Built from the bench module's own directory, so that the test also
	// passes with GOWORK=off (the workspace root is no module).
	if err := goBuild(filepath.Join(root, "bench"), floor, "./floor", "-s -w"); err != nil {
		t.Fatal(err)
	}
	// Grow this process's peak well past any Go program's floor.
	ballast := make([]byte, 32<<20)
	for i := range ballast {
		ballast[i] = 1
	}
	self := selfHWMMiB(t)
	runtime.KeepAlive(ballast)

	direct := exec.Command(floor)
	if err := direct.Run(); err != nil {
		t.Fatal(err)
	}
	inherited := float64(direct.ProcessState.SysUsage().(*syscall.Rusage).Maxrss) / 1024
	if inherited < self*0.9 {
		t.Errorf("started directly, the empty program reports %.2f MiB, not this process's %.2f MiB: the launcher may be unneeded", inherited, self)
	}

	_, rss, faults, err := measure(launcher, nil, floor, nil)
	t.Logf("this process %.2f MiB; empty program started directly %.2f MiB, through the launcher %.2f MiB", self, inherited, rss)
	if err != nil {
		t.Fatal(err)
	}
	if rss <= 0 || rss > 4 || faults <= 0 {
		t.Errorf("empty Go program through the launcher: peak %.2f MiB, %v faults; want its own ~1.5 MiB (this process: %.2f MiB)", rss, faults, self)
	}
}

// TestLaunchInNamespaces checks the launcher's -ns mode, the namespace
// floor's: the program runs as PID 1 of a new PID namespace, as the
// overflow user of a new user namespace, with no network interface up,
// and its exit status is reported.
func TestLaunchInNamespaces(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("namespaces are Linux's")
	}
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler for the launcher")
	}
	if err := exec.Command("unshare", "-Urn", "true").Run(); err != nil {
		t.Skipf("this host does not allow new user and network namespaces (unshare -Urn true: %v)", err)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	launcher := filepath.Join(t.TempDir(), "launch")
	if err := buildLauncher(root, launcher); err != nil {
		t.Fatal(err)
	}
	run := func(script string) launchUsage {
		t.Helper()
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		cmd := exec.Command(launcher, "-ns", "/bin/sh", "-c", script)
		cmd.ExtraFiles = []*os.File{w}
		out, err := cmd.CombinedOutput()
		w.Close()
		if err != nil {
			t.Fatalf("launch -ns: %v\n%s", err, out)
		}
		line, _ := io.ReadAll(r)
		u, err := parseLaunch(string(line))
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	// In the new namespaces: PID 1, no uid mapped yet, and a network
	// namespace whose only interface is loopback.
	check := `test $$ = 1 && test "$(wc -l < /proc/self/uid_map)" = 0 && test "$(grep -c : /proc/net/dev)" = 1 && grep -q 'lo:' /proc/net/dev`
	if u := run(check); u.code != 0 {
		t.Errorf("launch -ns: the program did not find itself in new PID and user namespaces (exit %d)", u.code)
	}
	if u := run("exit 7"); u.code != 7 {
		t.Errorf("launch -ns: exit status %d, want 7", u.code)
	}
	if _, _, _, err := measure(launcher, []string{"-ns"}, "/bin/sh", []string{"-c", "true"}); err != nil {
		t.Errorf("measure with -ns: %v", err)
	}
}

// TestDurableMakesATurnsWrites runs bench/launch/durable, the floor of a
// turn's durable writes: it leaves the session file with both lines and
// no temporary file, and a history file; "-" writes nothing.
func TestDurableMakesATurnsWrites(t *testing.T) {
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler for bench/launch")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "durable")
	if err := buildC(root, "durable.c", bin); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if out, err := exec.Command(bin, "-").CombinedOutput(); err != nil {
		t.Fatalf("durable -: %v\n%s", err, out)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("durable - wrote %d files", len(entries))
	}
	if out, err := exec.Command(bin, dir).CombinedOutput(); err != nil {
		t.Fatalf("durable: %v\n%s", err, out)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 2 || names[0] != "HISTORY.md" || !strings.HasPrefix(names[1], "turn_") || !strings.HasSuffix(names[1], ".jsonl") {
		t.Fatalf("durable left %v, want HISTORY.md and one turn_*.jsonl", names)
	}
	b, err := os.ReadFile(filepath.Join(dir, names[1]))
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); len(lines) != 2 || !strings.Contains(lines[0], `"user"`) || !strings.Contains(lines[1], `"assistant"`) {
		t.Fatalf("session file holds %q", b)
	}
	if err := exec.Command(bin, filepath.Join(dir, "missing")).Run(); err == nil {
		t.Fatal("durable succeeded in a directory that does not exist")
	}
}

func selfHWMMiB(t *testing.T) float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	kib, ok := statusKiB(string(b), "VmHWM:")
	if !ok || !strings.Contains(string(b), "VmHWM:") {
		t.Fatal("no VmHWM in /proc/self/status")
	}
	return kib / 1024
}
