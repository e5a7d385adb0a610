//go:build linux

package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/joshbot/joshbot/sandbox/internal/confine"
)

var helperBuild struct {
	once     sync.Once
	path, id string
	err      error
}

// dedicatedHelper builds testdata/helper once, statically and stripped
// as a release is, into a directory any user may read, and returns its
// path and Go build ID.
func dedicatedHelper(tb testing.TB) (path, id string) {
	tb.Helper()
	helperBuild.once.Do(func() {
		if p := os.Getenv(helperEnv); p != "" {
			helperBuild.path, helperBuild.id = p, goToolBuildID(p)
			return
		}
		dir, err := os.MkdirTemp("", "sandbox-helper-")
		if err != nil {
			helperBuild.err = err
			return
		}
		afterTests = append(afterTests, func() { os.RemoveAll(dir) })
		os.Chmod(dir, 0o755)
		p := filepath.Join(dir, "helper")
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w"+entryFlag(), "-o", p, "./testdata/helper")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			helperBuild.err = fmt.Errorf("building the helper: %v\n%s", err, out)
			return
		}
		helperBuild.path, helperBuild.id = p, goToolBuildID(p)
	})
	if helperBuild.err != nil {
		tb.Fatal(helperBuild.err)
	}
	return helperBuild.path, helperBuild.id
}

// entryFlag is the linker flag that makes sandbox/helper.Entry a
// helper's entry point, where there is one.
func entryFlag() string {
	if goruntime.GOARCH != "amd64" {
		return ""
	}
	return " -E github.com/joshbot/joshbot/sandbox/helper.Entry"
}

// TestDedicatedHelperRunsCommands: with Options.Helper and its build ID, a
// command runs under the dedicated helper (the first process of its PID
// namespace is that file) and is confined as under the default helper.
func TestDedicatedHelperRunsCommands(t *testing.T) {
	needIsolation(t)
	path, id := dedicatedHelper(t)
	ws := t.TempDir()
	sb, err := New(&Policy{Workspace: ws}, &Options{Helper: path, HelperBuildID: id})
	if err != nil {
		t.Fatal(err)
	}
	out, code := runIn(t, sb, `tr '\0' '\n' </proc/1/cmdline | head -1; echo x >/etc/joshbot-canary; cat /etc/shadow >/dev/null; echo ok >here`)
	if code != 0 || !strings.HasPrefix(out, path+"\n") {
		t.Fatalf("exit %d, output %q; want the helper %s as process 1", code, out, path)
	}
	if !strings.Contains(out, "/etc/joshbot-canary: Read-only file system") || !strings.Contains(out, "/etc/shadow: Permission denied") {
		t.Fatalf("output %q: want the write to /etc and the read of /etc/shadow refused", out)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "here")); err != nil || string(b) != "ok\n" {
		t.Fatalf("workspace file: %q, %v", b, err)
	}
}

// TestMismatchedHelperNeverRuns: a helper file whose build ID is not the
// one given (a stale helper beside an upgraded program) is refused with
// ErrHelperMismatch before anything runs, on every command, and a file
// swapped in after the check is not run either: commands run the file
// that was checked.
func TestMismatchedHelperNeverRuns(t *testing.T) {
	needIsolation(t)
	path, id := dedicatedHelper(t)
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	marker := filepath.Join(dir, "ran")
	stale := filepath.Join(dir, "stale-helper")
	script := "#!/bin/sh\ntouch " + marker + "\nexec \"$@\"\n"
	if err := os.WriteFile(stale, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	sb, err := New(&Policy{Workspace: t.TempDir()}, &Options{Helper: stale, HelperBuildID: id})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		cmd, _, err := sb.Command(context.Background(), sb.Policy().Workspace, []string{"/bin/true"}, nil)
		if !errors.Is(err, ErrHelperMismatch) || cmd != nil {
			t.Fatalf("Command = %v, %v; want ErrHelperMismatch and no command", cmd, err)
		}
		if msg := err.Error(); !strings.Contains(msg, stale) || !strings.Contains(msg, "Options.HelperBuildID") {
			t.Fatalf("error %q: want it to name the file and Options.HelperBuildID", msg)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the mismatched helper ran")
	}

	// The right helper, checked on the first command, then replaced on
	// disk by the stale one.
	good := filepath.Join(dir, "helper")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(good, b, 0o755); err != nil {
		t.Fatal(err)
	}
	sb, err = New(&Policy{Workspace: t.TempDir()}, &Options{Helper: good, HelperBuildID: id})
	if err != nil {
		t.Fatal(err)
	}
	if out, code := runIn(t, sb, "echo first"); code != 0 || out != "first\n" {
		t.Fatalf("first command: exit %d, %q", code, out)
	}
	if err := os.Rename(stale, good); err != nil {
		t.Fatal(err)
	}
	if out, code := runIn(t, sb, "echo second"); code != 0 || out != "second\n" {
		t.Fatalf("second command: exit %d, %q", code, out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the helper swapped in after the check ran")
	}
}

// TestHelperBuildIDNeedsHelper: a build ID without the file it is of is
// a mistake New names.
func TestHelperBuildIDNeedsHelper(t *testing.T) {
	_, err := New(&Policy{Workspace: t.TempDir()}, &Options{HelperBuildID: "ab"})
	if err == nil || !strings.Contains(err.Error(), "Options.Helper") {
		t.Fatalf("err = %v, want it to name Options.Helper", err)
	}
}

// TestCorpusThroughDedicatedHelper re-runs the confinement corpus (the
// Landlock, seccomp and isolation tests, unchanged) with every sandbox
// using the dedicated helper, and the test binary refusing to serve as
// one (see TestMain), through Command and through Start: each must pass
// the same.
func TestCorpusThroughDedicatedHelper(t *testing.T) {
	if os.Getenv(helperEnv) != "" {
		t.Skip("already running through the dedicated helper")
	}
	needIsolation(t)
	path, _ := dedicatedHelper(t)
	pd := probeDir(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"TestLandlockConfinesFilesAndNetwork", "TestSeccompFilterDecisions", "TestIsolationDevices", "TestIsolationNetwork",
		"TestIsolationUnixSockets", "TestIsolationMetadata", "TestIsolationPersistence", "TestIsolationIdentity",
		"TestIsolationEscapeSyscalls", "TestIsolationPlantedSymlink", "TestDedicatedHelperRunsCommands"}
	// Through Command the helper is started in its namespaces; through
	// Start, on linux/amd64, its entry point makes them.
	for _, via := range []string{"Command", "Start"} {
		cmd := exec.Command(exe, "-test.run", "^("+strings.Join(names, "|")+")$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), helperEnv+"="+path, probeDirEnv+"="+pd)
		if via == "Start" {
			cmd.Env = append(cmd.Env, startEnv+"=1")
		}
		out, err := cmd.CombinedOutput()
		if err != nil || bytes.Contains(out, []byte("--- SKIP")) {
			t.Fatalf("the corpus through %s and %s: %v\n%s", path, via, err, out)
		}
		for _, n := range names {
			if !bytes.Contains(out, []byte("--- PASS: "+n+" ")) {
				t.Fatalf("%s did not pass through the dedicated helper and %s:\n%s", n, via, out)
			}
		}
		t.Logf("%d cases passed through the dedicated helper and %s", bytes.Count(out, []byte("--- PASS: ")), via)
	}
}

// runIn runs script under /bin/sh confined in sb's workspace and returns
// its combined output and exit code.
func runIn(t *testing.T, sb *Sandbox, script string) (string, int) {
	t.Helper()
	out, code, err := runCmd(t, context.Background(), sb, sb.Policy().Workspace, []string{"/bin/sh", "-c", script}, ChildEnv(os.Environ(), nil))
	if err != nil {
		t.Fatal(err)
	}
	return out, code
}

// TestHelperForwardsSignals: a signal sent to the helper reaches the
// command, which may handle it, through the default and the dedicated
// helper alike. (Forwarded from a thread other than the one the command
// was started from, Landlock's signal scope refused it with EPERM.)
func TestHelperForwardsSignals(t *testing.T) {
	needIsolation(t)
	path, id := dedicatedHelper(t)
	for _, tt := range []struct {
		name string
		opts *Options
	}{{"self", nil}, {"dedicated", &Options{Helper: path, HelperBuildID: id}}} {
		t.Run(tt.name, func(t *testing.T) {
			sb, err := New(&Policy{Workspace: t.TempDir()}, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			script := `trap 'echo got TERM; exit 7' TERM; echo ready; while :; do sleep 0.02; done`
			cmd, cleanup, err := sb.Command(context.Background(), sb.Policy().Workspace, []string{"/bin/sh", "-c", script}, ChildEnv(os.Environ(), nil))
			if err != nil {
				t.Fatal(err)
			}
			defer cleanup()
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			r := bufio.NewReader(stdout)
			if line, err := r.ReadString('\n'); err != nil || line != "ready\n" {
				cmd.Process.Kill()
				t.Fatalf("first line %q, %v", line, err)
			}
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			rest, _ := io.ReadAll(r)
			err = cmd.Wait()
			if string(rest) != "got TERM\n" || cmd.ProcessState.ExitCode() != 7 {
				t.Fatalf("after SIGTERM: output %q, exit %d (%v); want the command's trap to run", rest, cmd.ProcessState.ExitCode(), err)
			}
		})
	}
}

// TestFilterTravelsWhole: the seccomp filter the parent generates once
// reaches the helper instruction for instruction, and a spec without a
// usable filter is refused rather than run unfiltered.
func TestFilterTravelsWhole(t *testing.T) {
	filter, err := seccompFilter()
	if err != nil {
		t.Skip(err)
	}
	got, err := confine.FilterFrom(confine.FilterBytes(filter))
	if err != nil || !slices.Equal(got, filter) {
		t.Fatalf("round trip: %v (%d of %d instructions)", err, len(got), len(filter))
	}
	for _, b := range [][]byte{nil, {1, 2, 3}, make([]byte, 8*4097)} {
		if _, err := confine.FilterFrom(b); err == nil {
			t.Fatalf("%d bytes accepted as a filter", len(b))
		}
	}
}

// TestGoBuildIDReadsWhatTheGoCommandReads: the build ID read from the
// file's note is the one `go tool buildid` prints, for the dedicated
// helper and for this test binary; Go executables of other builds and
// files that are not Go executables are refused as mismatched.
func TestGoBuildIDReadsWhatTheGoCommandReads(t *testing.T) {
	path, id := dedicatedHelper(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, exe} {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := goBuildID(f)
		f.Close()
		if want := goToolBuildID(p); err != nil || got != want || want == "" {
			t.Fatalf("%s: read %q, %v; go tool buildid says %q", p, got, err, want)
		}
	}
	for _, other := range []string{exe, filepath.Join(probeDir(t), "probe"), "/bin/true", "/etc/passwd"} {
		if _, err := openChecked(other, id); !errors.Is(err, ErrHelperMismatch) {
			t.Fatalf("%s against the helper's build ID: %v, want ErrHelperMismatch", other, err)
		}
	}
	f, err := openChecked(path, id)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
}
