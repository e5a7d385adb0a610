//go:build linux

package sandbox

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestProbeCacheKeepsAWorkingReport: with Options.ProbeCache, the first
// sandbox probes and keeps the report in a 0600 file in a 0700
// directory; the next skips the probe. A file that does not match (torn,
// another key, another helper build) is a miss, and a report of a
// missing layer is never kept.
func TestProbeCacheKeepsAWorkingReport(t *testing.T) {
	if probeKey("") == "" {
		t.Fatal("no probe key on Linux")
	}
	ok := Report{Platform: "linux", Mechanism: linuxMechanism, LandlockABI: 7, Available: true, CanDenyNetwork: true}
	missing := Report{Platform: "linux", Reason: "namespaces: user.max_user_namespaces is 0"}
	calls := 0
	rep := ok
	old := probe
	probe = func() Report { calls++; return rep }
	defer func() { probe = old }()
	ws := t.TempDir()
	cache := filepath.Join(t.TempDir(), "state", "cache", "sandbox-probe.json")
	newSB := func(o *Options) (*Sandbox, error) { return New(&Policy{Workspace: ws}, o) }

	rep = missing
	if _, err := newSB(&Options{ProbeCache: cache}); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("err = %v, want ErrUnsupported", err)
	}
	if _, err := os.Stat(cache); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a report of a missing layer was kept: %v", err)
	}
	rep = ok
	for i := range 3 {
		sb, err := newSB(&Options{ProbeCache: cache})
		if err != nil {
			t.Fatal(err)
		}
		if sb.Report() != ok {
			t.Fatalf("report %d = %+v, want %+v", i, sb.Report(), ok)
		}
	}
	if calls != 2 {
		t.Fatalf("probed %d times, want 2 (the refused start, then one for three sandboxes)", calls)
	}
	fi, err := os.Stat(cache)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("cache file: %v, %v; want mode 0600", fi, err)
	}
	if di, err := os.Stat(filepath.Dir(cache)); err != nil || di.Mode().Perm() != 0o700 {
		t.Fatalf("cache directory: %v, %v; want mode 0700", di, err)
	}

	// Another helper build is another key.
	if _, err := newSB(&Options{ProbeCache: cache, Helper: "/bin/true", HelperBuildID: "other"}); err != nil {
		t.Fatal(err)
	}
	if calls != 3 {
		t.Fatalf("probed %d times, want 3: a new helper build ID must miss", calls)
	}
	// A key that does not match, and a torn file, are misses.
	b, _ := os.ReadFile(cache)
	c, read := decodeCachedProbe(b)
	if !read || c.Report != rep {
		t.Fatalf("the kept file %q does not read back", b)
	}
	c.Key = "another boot"
	b, _ = c.encode()
	for _, content := range [][]byte{b, b[:len(b)/2], []byte("")} {
		if err := os.WriteFile(cache, content, 0o600); err != nil {
			t.Fatal(err)
		}
		before := calls
		if _, err := newSB(&Options{ProbeCache: cache}); err != nil {
			t.Fatal(err)
		}
		if calls != before+1 {
			t.Fatalf("a cache of %q did not probe", content)
		}
	}
	// Without ProbeCache every sandbox probes.
	before := calls
	newSB(nil)
	newSB(&Options{})
	if calls != before+2 {
		t.Fatalf("probed %d times without a cache, want 2", calls-before)
	}
}

// staleProbeEnv marks the test binary re-run by
// TestStaleProbeCacheFailsClosed.
const staleProbeEnv = "SANDBOX_TEST_STALE_PROBE"

// TestStaleProbeCacheFailsClosed proves that a kept report that no
// longer holds can only make a command fail, never run it unconfined.
// The cache is filled by a real probe; then this test binary re-runs
// itself under a seccomp filter that refuses new user namespaces. The key
// sees this process's seccomp state, so the child re-keys the kept report
// to its own conditions: the stale entry a change the key cannot see (an
// AppArmor policy, say) would leave. There a fresh Probe reports the
// namespaces missing, the stale cache still says every layer works, and
// the command must not run at all.
func TestStaleProbeCacheFailsClosed(t *testing.T) {
	if os.Getenv(staleProbeEnv) != "" {
		staleProbeChild(t)
		return
	}
	needLandlock(t)
	dir := t.TempDir()
	cache := filepath.Join(dir, "probe.json")
	ws := filepath.Join(dir, "ws")
	if err := os.Mkdir(ws, 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := New(&Policy{Workspace: ws}, &Options{ProbeCache: cache}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestStaleProbeCacheFailsClosed$", "-test.v")
	cmd.Env = append(os.Environ(), staleProbeEnv+"="+dir)
	out, err := cmd.CombinedOutput()
	t.Logf("child:\n%s", out)
	if err != nil {
		t.Fatalf("child: %v", err)
	}
	if _, err := os.Stat(filepath.Join(ws, "ran")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the command ran: %v", err)
	}
}

func staleProbeChild(t *testing.T) {
	dir := os.Getenv(staleProbeEnv)
	ws := filepath.Join(dir, "ws")
	denyUserNamespaces(t)
	if r := Probe(); r.Namespaces.Available || r.Available {
		t.Fatalf("the filter did not take: a fresh probe says %+v", r)
	}
	cache := filepath.Join(dir, "probe.json")
	b, err := os.ReadFile(cache)
	if err != nil {
		t.Fatal(err)
	}
	c, ok := decodeCachedProbe(b)
	if !ok {
		t.Fatalf("the kept file %q does not read back", b)
	}
	if c.Key == probeKey("") {
		t.Fatal("the key did not change with this process's seccomp state")
	}
	c.Key = probeKey("")
	if err := writeProbeCache(cache, c); err != nil {
		t.Fatal(err)
	}
	sb, err := New(&Policy{Workspace: ws}, &Options{ProbeCache: cache})
	if err != nil {
		t.Fatalf("New did not use the kept report: %v", err)
	}
	if !sb.Report().Available {
		t.Fatalf("report %+v, want the kept one", sb.Report())
	}
	cmd, cleanup, err := sb.Command(context.Background(), ws, []string{"/bin/sh", "-c", "echo ran > " + filepath.Join(ws, "ran")}, os.Environ())
	if err != nil {
		t.Logf("refused by Command: %v", err)
		return
	}
	defer cleanup()
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the command succeeded under a stale report: %s", out)
	}
	t.Logf("refused at the start: %v %s", err, out)
}

// denyUserNamespaces installs, on every thread, a seccomp filter that
// fails clone and unshare with CLONE_NEWUSER (EPERM) and clone3 (ENOSYS,
// so the Go runtime falls back to clone).
func denyUserNamespaces(t *testing.T) {
	const (
		ldW   = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jset  = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
		ret   = unix.BPF_RET | unix.BPF_K
		allow = unix.SECCOMP_RET_ALLOW
		eperm = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
		enosy = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
	)
	argLow := uint32(16) // seccomp_data.args[0], low word (little endian)
	if runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" {
		t.Skip("the test filter is written for little-endian amd64 and arm64")
	}
	prog := []unix.SockFilter{
		{Code: ldW, K: 0}, // 0: nr
		{Code: jeq, K: unix.SYS_CLONE3, Jt: 0, Jf: 1},     // 1
		{Code: ret, K: enosy},                             // 2
		{Code: jeq, K: unix.SYS_CLONE, Jt: 1, Jf: 0},      // 3
		{Code: jeq, K: unix.SYS_UNSHARE, Jt: 0, Jf: 3},    // 4
		{Code: ldW, K: argLow},                            // 5
		{Code: jset, K: unix.CLONE_NEWUSER, Jt: 0, Jf: 1}, // 6
		{Code: ret, K: eperm},                             // 7
		{Code: ret, K: allow},                             // 8
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	// no_new_privs on this thread; TSYNC gives it, and the filter, to
	// every other thread.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		t.Fatalf("no_new_privs: %v", err)
	}
	if _, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fprog))); e != 0 {
		t.Fatalf("seccomp: %v", e)
	}
	runtime.KeepAlive(prog)
}

// TestGoBuildIDPastTheFirstPages: goBuildID reads 8 KiB first, but an ID
// the go command would find further in (up to 32 KiB) is still found.
func TestGoBuildIDPastTheFirstPages(t *testing.T) {
	for _, at := range []int{100, 8<<10 - 20, 20 << 10} {
		b := make([]byte, 24<<10)
		copy(b, "\x7fELF\x02\x01")
		id := "abc/def"
		note := append([]byte{4, 0, 0, 0, byte(len(id)), 0, 0, 0, 4, 0, 0, 0}, "Go\x00\x00"+id...)
		copy(b[at:], note)
		p := filepath.Join(t.TempDir(), "exe")
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := goBuildID(f)
		f.Close()
		if err != nil || got != id {
			t.Fatalf("note at %d: got %q, %v; want %q", at, got, err, id)
		}
	}
}

// TestProbeCacheFileRoundTrips: a report is read back as written, every
// field; a report with a line break in a value is not kept; a file with
// a field missing or altered in form is not read.
func TestProbeCacheFileRoundTrips(t *testing.T) {
	c := cachedProbe{Key: "k", Report: Report{Platform: "linux", Mechanism: linuxMechanism, LandlockABI: 7, Available: true, CanDenyNetwork: true,
		Namespaces: Layer{true, "user, mount namespaces"}, IDMappedMounts: Layer{true, "commands run as host uid 2147418112"},
		Seccomp: Layer{true, "filter for amd64"}, Landlock: Layer{false, "ABI 7 but"}}}
	b, ok := c.encode()
	if !ok {
		t.Fatal("not encoded")
	}
	got, ok := decodeCachedProbe(b)
	if !ok || got != c {
		t.Fatalf("read back %+v, %v; want %+v", got, ok, c)
	}
	bad := c
	bad.Report.Seccomp.Detail = "two\nlines"
	if _, ok := bad.encode(); ok {
		t.Fatal("a value with a line break was encoded")
	}
	lines := strings.Split(string(b), "\n")
	for i := range 12 {
		edited := slices.Clone(lines)
		edited[i] = "x" + edited[i]
		if _, ok := decodeCachedProbe([]byte(strings.Join(edited, "\n"))); ok {
			t.Fatalf("line %d altered (%q) was read", i, edited[i])
		}
	}
}
