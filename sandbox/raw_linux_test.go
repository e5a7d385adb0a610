//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"regexp"
	goruntime "runtime"
	"strings"
	"testing"
)

// rawProbe prints what a command sees of its confinement: identity,
// capabilities, no_new_privs and seccomp, the mounts of its root, the
// devices, the host name, the network, its descriptors, what Landlock
// refuses, the proxy variables, and how many threads process 1 of its PID
// namespace has. The
// mounts are sorted: their order follows the order they were made in,
// which for the Go helper races with the parent's idmapped mounts.
const rawProbe = `id; ls / 2>&1; ls /dev /tmp; grep -E '^(Cap|NoNewPrivs|Seccomp)' /proc/self/status
cut -d' ' -f5,6,9- /proc/self/mountinfo | sort; hostname; ls /sys 2>&1; ls /proc/self/fd; readlink /proc/self/fd/0 /proc/self/fd/1 /proc/self/fd/2
(echo x >/etc/probe) 2>&1; (echo x >/probe) 2>&1; (cat /etc/shadow) 2>&1; echo y >"$TMPDIR/t" && cat "$TMPDIR/t"
env | grep -i '_proxy=' | sort; grep Threads /proc/1/status; exit 3`

// The parts of rawProbe's output that differ from run to run: the
// workspace's name, pipe inodes, and process 1's threads, compared apart.
var rawProbeVaries = regexp.MustCompile(`/tmp/TestRaw[^ /]*/[0-9]+|pipe:\[[0-9]+\]|/proc/[0-9]+/fd|Threads:\s+[0-9]+|127\.0\.0\.1:[0-9]+`)

// TestRawHelperConfinesAsTheGoHelper: on linux/amd64 a dedicated helper
// linked with helper.Entry confines a command with no Go runtime started
// (process 1 of the command's PID namespace has one thread), and the
// command sees exactly what it sees under the Go helper, with the network
// denied and allowed: the same identity, capabilities, filter, root,
// devices, descriptors, proxy variables and refusals, the same status and
// output.
func TestRawHelperConfinesAsTheGoHelper(t *testing.T) {
	if goruntime.GOARCH != "amd64" {
		t.Skip("helper.Entry exists on linux/amd64 only")
	}
	if os.Getenv(helperEnv) != "" {
		t.Skip("already running through the dedicated helper")
	}
	needIsolation(t)
	path, id := dedicatedHelper(t)
	run := func(opts *Options, network bool) (string, string) {
		sb, err := New(&Policy{Workspace: t.TempDir(), AllowNetwork: network}, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer sb.Close()
		var out bytes.Buffer
		// A name without a slash: the helper looks it up in PATH.
		p, err := sb.Start(context.Background(), &Cmd{Dir: sb.Policy().Workspace, Args: []string{"sh", "-c", rawProbe}, Env: ChildEnv(os.Environ(), nil), Output: &out})
		if err != nil {
			t.Fatal(err)
		}
		code, err := p.Wait()
		if err != nil || code != 3 {
			t.Fatalf("exit %d, %v; want the probe's 3:\n%s", code, err, out.String())
		}
		threads := regexp.MustCompile(`Threads:\s+([0-9]+)`).FindStringSubmatch(out.String())
		if threads == nil {
			t.Fatalf("no thread count in:\n%s", out.String())
		}
		return rawProbeVaries.ReplaceAllString(out.String(), "…"), threads[1]
	}
	for _, network := range []bool{false, true} {
		raw, rawThreads := run(&Options{Helper: path, HelperBuildID: id}, network)
		goOut, goThreads := run(nil, network)
		if rawThreads != "1" || goThreads == "1" {
			t.Fatalf("network %v: process 1 has %s threads under the dedicated helper and %s under the Go helper; want 1 (no Go runtime) and more", network, rawThreads, goThreads)
		}
		if raw != goOut {
			t.Fatalf("network %v: the command saw something else under the raw helper:\n--- raw\n%s\n--- Go helper\n%s", network, raw, goOut)
		}
		for _, want := range []string{"uid=0(root)", "CapEff:\t0000000000000000", "NoNewPrivs:\t1", "Seccomp:\t2", "sandbox\n",
			"/etc/probe: Read-only file system", "Permission denied", "y\n"} {
			if !strings.Contains(raw, want) {
				t.Fatalf("network %v: probe output lacks %q:\n%s", network, want, raw)
			}
		}
		if proxied := strings.Contains(raw, "HTTPS_PROXY=http://…\n"); proxied != network {
			t.Fatalf("network %v: the command's environment names the proxy: %v:\n%s", network, proxied, raw)
		}
	}
}

// TestStartThroughRawHelper re-runs the tests of Start's behaviour (status
// and output, a setup failure, the context's end, signals, concurrency,
// the corpus through a prestarted helper, a prestarted helper building
// its system root while it waits, Close, a prestarted helper that died)
// with every sandbox using the dedicated helper, which on linux/amd64
// runs them with no Go runtime: each must pass the same.
func TestStartThroughRawHelper(t *testing.T) {
	if os.Getenv(helperEnv) != "" {
		t.Skip("already running through the dedicated helper")
	}
	needIsolation(t)
	path, _ := dedicatedHelper(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"TestStartStatusAndOutput", "TestStartSetupFailure", "TestStartContextKills", "TestStartSignal", "TestStartConcurrent",
		"TestCorpusThroughPrestart", "TestPrestartedHelperBuildsItsSystemRootWhileWaiting", "TestCloseStopsPrestartedHelper", "TestStartAfterPrestartedHelperDied"}
	cmd := exec.Command(exe, "-test.run", "^("+strings.Join(names, "|")+")$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), helperEnv+"="+path, probeDirEnv+"="+probeDir(t))
	out, err := cmd.CombinedOutput()
	if err != nil || bytes.Contains(out, []byte("--- SKIP")) {
		t.Fatalf("Start's tests through %s: %v\n%s", path, err, out)
	}
	for _, n := range names {
		if !bytes.Contains(out, []byte("--- PASS: "+n+" ")) {
			t.Fatalf("%s did not pass through the dedicated helper:\n%s", n, out)
		}
	}
}
