//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The isolation corpus: each case is an attack (or a control that must
// keep working) run through Sandbox.Command on this kernel. Cases are
// named family/case, so `go test -run TestIsolation -v` counts them per
// family. Canaries live in t.TempDir(); network listeners are on
// loopback; no device is ever written.

var probeBuild struct {
	once sync.Once
	dir  string
	err  error
}

// probeDir builds testdata/probe once into a directory the sandbox is
// given read-only, and returns that directory.
func probeDir(t *testing.T) string {
	t.Helper()
	probeBuild.once.Do(func() {
		if dir := os.Getenv(probeDirEnv); dir != "" {
			probeBuild.dir = dir
			return
		}
		dir, err := os.MkdirTemp("", "sandbox-probe-")
		if err != nil {
			probeBuild.err = err
			return
		}
		afterTests = append(afterTests, func() { os.RemoveAll(dir) })
		os.Chmod(dir, 0o755)
		out, err := exec.Command("go", "build", "-o", filepath.Join(dir, "probe"), "./testdata/probe").CombinedOutput()
		if err != nil {
			probeBuild.err = fmt.Errorf("building the probe: %v\n%s", err, out)
		}
		probeBuild.dir = dir
	})
	if probeBuild.err != nil {
		t.Fatal(probeBuild.err)
	}
	return probeBuild.dir
}

// probeDirEnv names an already built probe directory, for the test binary
// re-run as an unprivileged user.
const probeDirEnv = "SANDBOX_TEST_PROBE_DIR"

// TestUnprivilegedParent re-runs the corpus with the test binary as
// nobody (uid 65534), through Command and through Start with the
// dedicated helper: the sandbox then maps the caller's own ids and binds
// the directories without idmapped mounts, and every case except those
// about a root parent must hold the same.
func TestUnprivilegedParent(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("already unprivileged: the corpus runs as this user directly")
	}
	needIsolation(t)
	pd := probeDir(t)
	// The test binary lives in a 0700 build directory; nobody runs a copy.
	dir, err := os.MkdirTemp("", "sandbox-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o777)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "sandbox.test")
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	names := []string{"TestLandlockConfinesFilesAndNetwork", "TestIsolationDevices", "TestIsolationNetwork",
		"TestIsolationUnixSockets", "TestIsolationMetadata", "TestIsolationPersistence", "TestIsolationEscapeSyscalls",
		"TestIsolationPlantedSymlink"}
	// Through Command with this binary as the helper, and through Start
	// with the dedicated helper, whose entry point makes its namespaces
	// on linux/amd64 (this binary then refuses to serve as one).
	helper, _ := dedicatedHelper(t)
	for _, via := range []string{"Command", "Start and the dedicated helper"} {
		cmd := exec.Command(bin, "-test.run", "^("+strings.Join(names, "|")+")$", "-test.count=1", "-test.v")
		cmd.Dir = dir
		cmd.Env = append(ChildEnv(os.Environ(), nil), "HOME="+dir, probeDirEnv+"="+pd, "TMPDIR="+dir)
		if via != "Command" {
			cmd.Env = append(cmd.Env, helperEnv+"="+helper, startEnv+"=1")
		}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}}
		out, err := cmd.CombinedOutput()
		if err != nil || bytes.Contains(out, []byte("--- SKIP")) {
			t.Fatalf("the corpus as uid 65534 through %s: %v\n%s", via, err, out)
		}
		for _, n := range names {
			if !bytes.Contains(out, []byte("--- PASS: "+n+" ")) {
				t.Fatalf("%s did not pass as uid 65534 through %s:\n%s", n, via, out)
			}
		}
		t.Logf("%d cases passed as uid 65534 through %s", bytes.Count(out, []byte("--- PASS: ")), via)
	}
}

// needIsolation skips, saying why, only when a layer is missing.
func needIsolation(t *testing.T) {
	t.Helper()
	if r := Probe(); !r.Available {
		t.Skipf("the kernel lacks a sandbox layer: %s", r.Reason)
	}
}

type box struct {
	t     *testing.T
	sb    *Sandbox
	ws    string
	probe string
}

func newBox(t *testing.T, p Policy, opts *Options) *box {
	t.Helper()
	needIsolation(t)
	if p.Workspace == "" {
		p.Workspace = t.TempDir()
	}
	pd := probeDir(t)
	p.ReadOnly = append(p.ReadOnly, pd)
	sb, err := New(&p, opts)
	if err != nil {
		t.Fatal(err)
	}
	return &box{t: t, sb: sb, ws: sb.Policy().Workspace, probe: filepath.Join(pd, "probe")}
}

// sh runs script under bash in the workspace and returns its combined
// output and exit code (-1 when it did not run to an exit).
func (b *box) sh(script string) (string, int) {
	b.t.Helper()
	return b.shCtx(context.Background(), script)
}

func (b *box) shCtx(ctx context.Context, script string) (string, int) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, code, err := runCmd(b.t, ctx, b.sb, b.ws, []string{"/bin/bash", "-c", script}, ChildEnv(os.Environ(), nil))
	if err != nil {
		return out + err.Error(), -1
	}
	return out, code
}

// probeOp runs the probe binary confined.
func (b *box) probeOp(args ...string) (string, int) {
	b.t.Helper()
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = "'" + a + "'"
	}
	return b.sh(b.probe + " " + strings.Join(q, " "))
}

// mustFail asserts the script fails and its output contains want.
func (b *box) mustFail(script, want string) {
	b.t.Helper()
	out, code := b.sh(script)
	if code == 0 || !strings.Contains(out, want) {
		b.t.Fatalf("%s: want failure with %q, got exit %d: %q", script, want, code, out)
	}
}

// mustSucceed asserts the script succeeds and returns its output.
func (b *box) mustSucceed(script string) string {
	b.t.Helper()
	out, code := b.sh(script)
	if code != 0 {
		b.t.Fatalf("%s: want success, got exit %d: %q", script, code, out)
	}
	return out
}

// denied asserts the probe's system call failed with EPERM, the
// seccomp filter's answer.
func (b *box) denied(args ...string) {
	b.t.Helper()
	b.deniedWith("operation not permitted", args...)
}

func (b *box) deniedWith(want string, args ...string) {
	b.t.Helper()
	out, code := b.probeOp(args...)
	if code == 0 || !strings.Contains(out, want) {
		b.t.Fatalf("probe %v: want %q, got exit %d: %q", args, want, code, out)
	}
}

func (b *box) allowed(args ...string) {
	b.t.Helper()
	if out, code := b.probeOp(args...); code != 0 {
		b.t.Fatalf("probe %v: want ok, got exit %d: %q", args, code, out)
	}
}

func TestIsolationDevices(t *testing.T) {
	b := newBox(t, Policy{}, nil)
	t.Run("devices/loop0 absent", func(t *testing.T) {
		b.t = t
		b.mustFail("head -c 64 /dev/loop0", "No such file or directory")
	})
	t.Run("devices/mknod block", func(t *testing.T) {
		b.t = t
		b.mustFail("mknod blk b 7 0", "Operation not permitted")
		if _, err := os.Lstat(filepath.Join(b.ws, "blk")); !errors.Is(err, os.ErrNotExist) {
			t.Fatal("a block device node was created")
		}
	})
	t.Run("devices/mknod char", func(t *testing.T) {
		b.t = t
		b.mustFail("mknod chr c 1 3", "Operation not permitted")
	})
	t.Run("devices/mknod syscall block", func(t *testing.T) {
		b.t = t
		b.denied("mknod", "blk2", "b")
	})
	t.Run("devices/mknod syscall char", func(t *testing.T) {
		b.t = t
		b.denied("mknod", "chr2", "c")
	})
	t.Run("devices/dev holds only the harmless nodes", func(t *testing.T) {
		b.t = t
		out := b.mustSucceed("ls -A /dev | tr '\\n' ' '")
		if got, want := strings.TrimSpace(out), "fd full null random shm stderr stdin stdout tty urandom zero"; got != want {
			t.Fatalf("/dev holds %q, want %q", got, want)
		}
	})
	t.Run("devices/no pts", func(t *testing.T) {
		b.t = t
		b.mustFail("ls /dev/pts/0", "No such file or directory")
	})
	t.Run("devices/no kmsg", func(t *testing.T) {
		b.t = t
		b.mustFail("head -c 10 /dev/kmsg", "No such file or directory")
	})
	t.Run("devices/no controlling terminal", func(t *testing.T) {
		b.t = t
		b.mustFail("cat /dev/tty", "No such device or address")
	})
	t.Run("devices/dev is read-only", func(t *testing.T) {
		b.t = t
		b.mustFail("touch /dev/new", "Read-only file system")
	})
	t.Run("devices/no sys", func(t *testing.T) {
		b.t = t
		b.mustFail("ls /sys/block", "No such file or directory")
	})
	t.Run("devices/stdout and stderr reopen", func(t *testing.T) {
		b.t = t
		if out := b.mustSucceed("echo a > /dev/stdout; echo b > /dev/stderr; echo c > /dev/fd/1"); out != "a\nb\nc\n" {
			t.Fatalf("got %q", out)
		}
	})
	t.Run("devices/null, urandom and fifos work", func(t *testing.T) {
		b.t = t
		out := b.mustSucceed("echo x > /dev/null && head -c 4 /dev/urandom | wc -c && mkfifo f && test -p f && echo fifo")
		if !strings.Contains(out, "4") || !strings.Contains(out, "fifo") {
			t.Fatalf("got %q", out)
		}
	})
}

// Socket families and types, as the probe's numeric arguments.
const (
	afINET, afINET6, afUNIX, afPACKET, afNETLINK = "2", "10", "1", "17", "16"
	sockSTREAM, sockDGRAM, sockRAW, sockSEQ      = "1", "2", "3", "5"
	sockStreamCloexec                            = "524289" // SOCK_STREAM|SOCK_CLOEXEC
	ipprotoMPTCP, ipprotoICMP, ipprotoTCP        = "262", "1", "6"
	ethPAll                                      = "768" // htons(ETH_P_ALL)
)

func TestIsolationNetwork(t *testing.T) {
	needIsolation(t)
	// A loopback listener on the host that answers HTTP: the target every
	// escape below tries to reach.
	var hits sync.Map
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Store(r.URL.Path, true)
		io.WriteString(w, "hello from the host")
	}))
	defer srv.Close()
	hostAddr := srv.Listener.Addr().String()
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	udpGot := make(chan struct{}, 1)
	go func() {
		buf := make([]byte, 64)
		if _, _, err := udp.ReadFrom(buf); err == nil {
			udpGot <- struct{}{}
		}
	}()

	for _, mode := range []struct {
		name string
		net  bool
	}{{"denied", false}, {"allowed", true}} {
		b := newBox(t, Policy{AllowNetwork: mode.net}, &Options{ProxyAllow: func(netip.AddrPort) bool { return true }})
		run := func(name string, f func(t *testing.T)) {
			t.Run("network/"+mode.name+"/"+name, func(t *testing.T) { b.t = t; f(t) })
		}
		run("mptcp socket", func(t *testing.T) { b.denied("socket", afINET, sockSTREAM, ipprotoMPTCP) })
		run("mptcp http exchange", func(t *testing.T) { b.denied("mptcp-http", hostAddr) })
		run("mptcp6 socket", func(t *testing.T) { b.denied("socket", afINET6, sockSTREAM, ipprotoMPTCP) })
		run("udp socket", func(t *testing.T) { b.denied("socket", afINET, sockDGRAM, "0") })
		run("udp6 socket", func(t *testing.T) { b.denied("socket", afINET6, sockDGRAM, "0") })
		run("udp datagram", func(t *testing.T) { b.denied("udp-send", udp.LocalAddr().String()) })
		run("raw icmp socket", func(t *testing.T) { b.denied("socket", afINET, sockRAW, ipprotoICMP) })
		run("icmp datagram socket", func(t *testing.T) { b.denied("socket", afINET, sockDGRAM, ipprotoICMP) })
		run("sctp seqpacket socket", func(t *testing.T) { b.denied("socket", afINET, sockSEQ, "132") })
		run("packet socket", func(t *testing.T) { b.denied("socket", afPACKET, sockRAW, ethPAll) })
		run("packet dgram socket", func(t *testing.T) { b.denied("socket", afPACKET, sockDGRAM, ethPAll) })
		run("netlink socket", func(t *testing.T) { b.denied("socket", afNETLINK, sockRAW, "0") })
		run("netlink socketpair", func(t *testing.T) { b.denied("socketpair", afNETLINK, sockRAW) })
		run("ip link add bridge", func(t *testing.T) { b.mustFail("ip link add br0 type bridge", "") })
		run("ping", func(t *testing.T) { b.mustFail("ping -c1 -W1 127.0.0.1", "") })
		run("tcp socket works", func(t *testing.T) { b.allowed("socket", afINET, sockStreamCloexec, ipprotoTCP) })
		run("unix socket works", func(t *testing.T) { b.allowed("socket", afUNIX, sockSTREAM, "0") })
		run("direct tcp to host loopback", func(t *testing.T) {
			b.mustFail(fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo connected", port), "")
		})
		run("loopback inside is up", func(t *testing.T) {
			if mode.net {
				// The proxy listens there; nothing else needs checking.
				b.mustSucceed(`p=${HTTP_PROXY#http://}; exec 3<>/dev/tcp/${p%:*}/${p##*:}`)
				return
			}
			b.mustSucceed("grep -q 'lo:' /proc/net/dev && test $(grep -c ':' /proc/net/dev) -eq 1")
		})
		if !mode.net {
			run("no proxy variables", func(t *testing.T) {
				if out := b.mustSucceed("env | grep -i _proxy || true"); strings.TrimSpace(out) != "" {
					t.Fatalf("proxy variables with the network denied: %q", out)
				}
			})
			continue
		}
		run("proxy variables", func(t *testing.T) {
			out := b.mustSucceed(`for v in HTTP_PROXY HTTPS_PROXY http_proxy https_proxy ALL_PROXY; do printenv $v; done; printf 'NO_PROXY=[%s]\n' "$NO_PROXY"`)
			if !regexp.MustCompile(`^(http://127\.0\.0\.1:\d+\n){5}NO_PROXY=\[\]\n$`).MatchString(out) {
				t.Fatalf("proxy variables: %q", out)
			}
		})
		run("plain http through the proxy", func(t *testing.T) {
			out := b.mustSucceed(fmt.Sprintf("curl -sS -m 10 http://127.0.0.1:%d/plain", port))
			if !strings.Contains(out, "hello from the host") {
				t.Fatalf("got %q", out)
			}
		})
		run("connect tunnel through the proxy", func(t *testing.T) {
			out := b.mustSucceed(fmt.Sprintf("curl -sS -m 10 -p http://127.0.0.1:%d/tunnel", port))
			if _, ok := hits.Load("/tunnel"); !ok || !strings.Contains(out, "hello from the host") {
				t.Fatalf("got %q", out)
			}
		})
	}
	select {
	case <-udpGot:
		t.Fatal("a UDP datagram reached the host")
	default:
	}
	// Without the operator's opt-in, the proxy is the address guard.
	guarded := newBox(t, Policy{AllowNetwork: true}, nil)
	for _, tt := range []struct{ name, url string }{
		{"loopback", fmt.Sprintf("http://127.0.0.1:%d/guarded", port)},
		{"metadata", "http://169.254.169.254/latest/meta-data/"},
		{"private", "http://10.0.0.1/"},
		{"loopback tunnel", fmt.Sprintf("-p http://127.0.0.1:%d/guarded", port)},
		{"ipv6 loopback", fmt.Sprintf("http://[::1]:%d/guarded", port)},
	} {
		t.Run("network/guard/"+tt.name, func(t *testing.T) {
			guarded.t = t
			out, _ := guarded.sh("curl -sS -m 10 " + tt.url)
			if !strings.Contains(out, "not public") && !strings.Contains(out, "response 403") {
				t.Fatalf("the proxy did not refuse %s: %q", tt.url, out)
			}
		})
	}
	if _, ok := hits.Load("/guarded"); ok {
		t.Fatal("a request reached the host's loopback through the guarded proxy")
	}
}

func TestIsolationUnixSockets(t *testing.T) {
	b := newBox(t, Policy{}, nil)
	outside := t.TempDir()
	path := filepath.Join(outside, "daemon.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	abstract := fmt.Sprintf("@joshbot-sandbox-test-%d", os.Getpid())
	aln, err := net.Listen("unix", abstract)
	if err != nil {
		t.Fatal(err)
	}
	defer aln.Close()
	var accepted sync.WaitGroup
	got := make(chan string, 4)
	for _, l := range []net.Listener{ln, aln} {
		accepted.Add(1)
		go func() {
			defer accepted.Done()
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				got <- l.Addr().String()
				c.Close()
			}
		}()
	}
	t.Run("unix/pathname socket outside the workspace", func(t *testing.T) {
		b.t = t
		b.deniedWith("no such file or directory", "unix-connect", path)
	})
	t.Run("unix/abstract socket of the host", func(t *testing.T) {
		b.t = t
		b.deniedWith("connection refused", "unix-connect", abstract)
	})
	t.Run("unix/socket in the workspace works", func(t *testing.T) {
		b.t = t
		inside := filepath.Join(b.ws, "own.sock")
		l, err := net.Listen("unix", inside)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		go func() {
			if c, err := l.Accept(); err == nil {
				c.Close()
			}
		}()
		b.allowed("unix-connect", inside)
	})
	ln.Close()
	aln.Close()
	accepted.Wait()
	select {
	case a := <-got:
		t.Fatalf("a confined command connected to %s", a)
	default:
	}
}

func TestIsolationMetadata(t *testing.T) {
	ro := t.TempDir()
	granted := filepath.Join(ro, "granted.txt")
	if err := os.WriteFile(granted, []byte("read-only canary"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	os.Chtimes(granted, old, old)
	outside := t.TempDir()
	hidden := filepath.Join(outside, "hidden.txt")
	os.WriteFile(hidden, []byte("outside canary"), 0o644)
	b := newBox(t, Policy{ReadOnly: []string{ro}}, nil)
	if err := os.WriteFile(filepath.Join(b.ws, "mine.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(name string, f func(t *testing.T)) { t.Run("metadata/"+name, func(t *testing.T) { b.t = t; f(t) }) }
	run("chmod 4777 in the workspace", func(t *testing.T) { b.mustFail("chmod 4777 mine.txt", "Operation not permitted") })
	run("chmod g+s in the workspace", func(t *testing.T) { b.mustFail("chmod g+s mine.txt", "Operation not permitted") })
	run("chmod syscall setuid", func(t *testing.T) { b.denied("chmod", "mine.txt", "04755") })
	run("fchmod syscall setgid", func(t *testing.T) { b.denied("fchmod", "mine.txt", "02755") })
	run("fchmodat2 syscall setuid", func(t *testing.T) { b.denied("fchmodat2", "mine.txt", "04755") })
	run("plain chmod in the workspace works", func(t *testing.T) { b.mustSucceed("chmod 0750 mine.txt") })
	run("create setuid file", func(t *testing.T) { b.denied("create", "suid1", "04755") })
	run("create setgid file", func(t *testing.T) { b.denied("create", "sgid1", "02755") })
	run("creat setuid file", func(t *testing.T) { b.denied("creat", "suid2", "04755") })
	run("mknod setuid regular file", func(t *testing.T) { b.denied("mknod", "suid3", "suid") })
	run("install -m 4755", func(t *testing.T) { b.mustFail("install -m 4755 /bin/true suid4", "Operation not permitted") })
	run("openat2 reports ENOSYS", func(t *testing.T) { b.deniedWith("function not implemented", "openat2", "mine.txt") })
	run("cp -a and tar keep working without xattrs", func(t *testing.T) {
		b.mustSucceed("cp -a mine.txt copy.txt && tar cf t.tar mine.txt && mkdir x && tar xpf t.tar -C x && test -f x/mine.txt")
	})
	run("create and mknod plain files work", func(t *testing.T) {
		b.allowed("create", "plain1", "0755")
		b.allowed("mknod", "plain2", "r")
	})
	run("no set-id file was made", func(t *testing.T) {
		ents, _ := os.ReadDir(b.ws)
		for _, e := range ents {
			if fi, err := e.Info(); err == nil && fi.Mode()&(os.ModeSetuid|os.ModeSetgid) != 0 {
				t.Fatalf("%s is %v", e.Name(), fi.Mode())
			}
		}
	})
	run("chmod 4777 in a read-only dir", func(t *testing.T) { b.mustFail("chmod 4777 "+granted, "Operation not permitted") })
	run("chmod in a read-only dir", func(t *testing.T) { b.mustFail("chmod 0777 "+granted, "Read-only file system") })
	run("chown in a read-only dir", func(t *testing.T) { b.mustFail("chown 0:0 "+granted, "") })
	run("utimes in a read-only dir", func(t *testing.T) { b.mustFail("touch -d 2020-01-01 "+granted, "Read-only file system") })
	run("write in a read-only dir", func(t *testing.T) { b.mustFail("echo x >> "+granted, "Read-only file system") })
	run("setxattr in a read-only dir", func(t *testing.T) { b.deniedWith("operation not supported", "setxattr", granted, "user.x") })
	run("chattr in a read-only dir", func(t *testing.T) { b.mustFail("chattr +i "+granted, "") })
	run("chmod outside", func(t *testing.T) { b.mustFail("chmod 4777 "+hidden, "") })
	run("touch outside", func(t *testing.T) { b.mustFail("touch "+hidden, "No such file or directory") })
	run("setxattr user in the workspace", func(t *testing.T) { b.deniedWith("operation not supported", "setxattr", "mine.txt", "user.x") })
	run("setxattr security in the workspace", func(t *testing.T) {
		b.deniedWith("operation not supported", "setxattr", "mine.txt", "security.capability")
	})
	run("removexattr in the workspace", func(t *testing.T) { b.deniedWith("operation not supported", "removexattr", "mine.txt", "user.x") })
	run("chown to another id in the workspace", func(t *testing.T) { b.mustFail("chown 1234:1234 mine.txt", "") })
	fi, err := os.Stat(granted)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	if fi.Mode() != 0o644 || !fi.ModTime().Equal(old) || st.Uid != uint32(os.Getuid()) {
		t.Fatalf("the read-only file changed: %v %v uid %d", fi.Mode(), fi.ModTime(), st.Uid)
	}
	if b, _ := os.ReadFile(hidden); string(b) != "outside canary" {
		t.Fatal("the file outside changed")
	}
}

// hostProcesses lists the host's processes whose command line contains
// marker.
func hostProcesses(marker string) []string {
	var found []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && bytes.Contains(b, []byte(marker)) {
			found = append(found, e.Name()+": "+strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return found
}

// noneLeft waits up to two seconds for every process carrying marker to
// be gone.
func noneLeft(t *testing.T, marker string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for {
		left := hostProcesses(marker)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, p := range left {
				if pid, err := strconv.Atoi(strings.SplitN(p, ":", 2)[0]); err == nil {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
			t.Fatalf("processes outlived the call: %q", left)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestIsolationPersistence(t *testing.T) {
	b := newBox(t, Policy{}, nil)
	mark := func() string { return fmt.Sprintf("98%d", time.Now().UnixNano()%10000000) }
	run := func(name string, f func(t *testing.T)) {
		t.Run("persistence/"+name, func(t *testing.T) { b.t = t; f(t) })
	}
	run("background sleep", func(t *testing.T) {
		m := mark()
		start := time.Now()
		b.mustSucceed("sleep " + m + " & echo $! > pid")
		if time.Since(start) > 4*time.Second {
			t.Fatal("the call waited for its background child")
		}
		noneLeft(t, "sleep "+m)
	})
	run("setsid double fork", func(t *testing.T) {
		m := mark()
		b.mustSucceed("setsid sh -c '(sleep " + m + " &) ; exit 0' </dev/null >/dev/null 2>&1; sleep 0.2")
		noneLeft(t, "sleep "+m)
	})
	run("nohup disown", func(t *testing.T) {
		m := mark()
		b.mustSucceed("nohup sleep " + m + " >/dev/null 2>&1 & disown; echo ok")
		noneLeft(t, "sleep "+m)
	})
	run("grandchild with output held open", func(t *testing.T) {
		m := mark()
		start := time.Now()
		b.mustSucceed("sh -c 'sleep " + m + "' & echo ok")
		if time.Since(start) > 4*time.Second {
			t.Fatal("the call waited for the grandchild's output")
		}
		noneLeft(t, "sleep "+m)
	})
	run("timed-out call leaves nothing", func(t *testing.T) {
		m, m2 := mark(), mark()+"1"
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		start := time.Now()
		out, code := b.shCtx(ctx, "setsid sleep "+m+" & sleep "+m2)
		if code == 0 || time.Since(start) > 5*time.Second {
			t.Fatalf("the timed-out call: exit %d after %v: %q", code, time.Since(start), out)
		}
		noneLeft(t, "sleep "+m)
		noneLeft(t, "sleep "+m2)
	})
	run("lock released when the call ends", func(t *testing.T) {
		m := mark()
		b.mustSucceed("flock -x .memory.lock sleep " + m + " & sleep 0.3")
		noneLeft(t, "sleep "+m)
		f, err := os.Open(filepath.Join(b.ws, ".memory.lock"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			t.Fatalf("the lock outlived the call: %v", err)
		}
	})
	run("exit status is the command's", func(t *testing.T) {
		if out, code := b.sh("exit 7"); code != 7 {
			t.Fatalf("exit %d: %q", code, out)
		}
	})
	run("a killed command reports the signal", func(t *testing.T) {
		if out, code := b.sh("kill -9 $$"); code != 128+9 {
			t.Fatalf("exit %d: %q", code, out)
		}
	})
}

func TestIsolationIdentity(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("these cases are about a parent running as root; this test runs as uid", os.Geteuid())
	}
	home, _ := os.UserHomeDir()
	cache := t.TempDir()
	b := newBox(t, Policy{CacheDir: filepath.Join(cache, "sandbox")}, nil)
	run := func(name string, f func(t *testing.T)) { t.Run("identity/"+name, func(t *testing.T) { b.t = t; f(t) }) }
	run("etc shadow unreadable", func(t *testing.T) { b.mustFail("head -c1 /etc/shadow", "Permission denied") })
	run("uid 0 inside with no capabilities", func(t *testing.T) {
		out := b.mustSucceed("id -u; grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb)' /proc/self/status")
		if !strings.HasPrefix(out, "0\n") || strings.Count(out, "0000000000000000") != 5 {
			t.Fatalf("identity: %q", out)
		}
	})
	run("hostname is private", func(t *testing.T) {
		if out := b.mustSucceed("hostname"); strings.TrimSpace(out) != "sandbox" {
			t.Fatalf("hostname %q", out)
		}
	})
	run("only the namespace's processes are visible", func(t *testing.T) {
		out := b.mustSucceed("ls /proc | grep -c '^[0-9]'")
		if n, _ := strconv.Atoi(strings.TrimSpace(out)); n < 1 || n > 6 {
			t.Fatalf("%d processes visible", n)
		}
	})
	run("parent environment unreachable", func(t *testing.T) {
		b.mustFail(fmt.Sprintf("cat /proc/%d/environ", os.Getpid()), "No such file or directory")
	})
	run("files created are owned by the real owner", func(t *testing.T) {
		b.mustSucceed("echo hi > made.txt && mkdir sub && touch sub/f")
		for _, p := range []string{"made.txt", "sub", "sub/f"} {
			fi, err := os.Stat(filepath.Join(b.ws, p))
			if err != nil {
				t.Fatal(err)
			}
			if st := fi.Sys().(*syscall.Stat_t); st.Uid != 0 || st.Gid != 0 {
				t.Fatalf("%s owned by %d:%d on disk, want 0:0", p, st.Uid, st.Gid)
			}
		}
	})
	run("home cache unreachable", func(t *testing.T) {
		b.mustFail("mkdir -p "+filepath.Join(home, ".cache", "planted")+" && echo x > "+filepath.Join(home, ".cache", "planted", "x"), "")
	})
	run("go module cache unwritable", func(t *testing.T) {
		gomod, err := exec.Command("go", "env", "GOMODCACHE").Output()
		if err != nil {
			t.Fatal(err)
		}
		d := strings.TrimSpace(string(gomod))
		b.mustFail("mkdir -p "+d+"/planted@v1 && echo x > "+d+"/planted@v1/x", "")
		if _, err := os.Stat(filepath.Join(d, "planted@v1")); err == nil {
			t.Fatal("planted in the Go module cache")
		}
	})
	run("caches point at the sandbox's own dir", func(t *testing.T) {
		out := b.mustSucceed("for v in GOCACHE GOMODCACHE GOPATH npm_config_cache PIP_CACHE_DIR XDG_CACHE_HOME; do printenv $v; done; mkdir -p \"$GOMODCACHE\" && touch \"$GOMODCACHE/ok\"")
		for _, l := range strings.Fields(out) {
			if !strings.HasPrefix(l, b.sb.Policy().CacheDir+"/") {
				t.Fatalf("a cache outside the sandbox's cache dir: %q", out)
			}
		}
		if _, err := os.Stat(filepath.Join(b.sb.Policy().CacheDir, "go", "pkg", "mod", "ok")); err != nil {
			t.Fatal(err)
		}
	})
	run("private tmp", func(t *testing.T) {
		out := b.mustSucceed(`echo t > "$TMPDIR/x" && cat "$TMPDIR/x" && echo "$TMPDIR"`)
		if out != "t\n/tmp\n" {
			t.Fatalf("got %q", out)
		}
	})

	// A workspace owned by an ordinary user, holding a root-owned 0600
	// file: the command runs as the owner and cannot read root's file,
	// and what it writes is owned by the user on disk.
	userWS := t.TempDir()
	os.Chown(userWS, 4242, 4242)
	secret := filepath.Join(userWS, "root-only")
	os.WriteFile(secret, []byte("root canary"), 0o600)
	ub := newBox(t, Policy{Workspace: userWS}, nil)
	t.Run("identity/root-owned 0600 file unreadable", func(t *testing.T) {
		ub.t = t
		ub.mustFail("cat root-only", "Permission denied")
	})
	t.Run("identity/user workspace writable and owned by the user", func(t *testing.T) {
		ub.t = t
		ub.mustSucceed("echo hi > mine && cat mine")
		fi, err := os.Stat(filepath.Join(userWS, "mine"))
		if err != nil {
			t.Fatal(err)
		}
		if st := fi.Sys().(*syscall.Stat_t); st.Uid != 4242 || st.Gid != 4242 {
			t.Fatalf("owned by %d:%d on disk, want 4242:4242", st.Uid, st.Gid)
		}
	})
}

func TestIsolationEscapeSyscalls(t *testing.T) {
	b := newBox(t, Policy{}, nil)
	for _, tt := range [][]string{
		{"ptrace-traceme"}, {"ptrace-attach", "1"}, {"process_vm_readv"}, {"pidfd_getfd"},
		{"add_key"}, {"request_key"}, {"keyctl"},
		{"bpf"}, {"perf_event_open"}, {"userfaultfd"}, {"io_uring_setup"},
		{"unshare", "0x10000000"}, {"unshare", "0x40000000"}, {"unshare", "0x20000"},
		{"clone-ns", "0x10000000"}, {"clone-ns", "0x20000000"}, {"setns"},
		{"mount", "/tmp"}, {"umount", "/tmp"}, {"pivot_root"}, {"chroot"},
		{"open_tree"}, {"fsopen"}, {"move_mount"},
		{"name_to_handle_at"}, {"open_by_handle_at"},
		{"personality", "0x0040000"}, {"tiocsti"}, {"tioclinux"},
		{"kexec_load"}, {"finit_module"}, {"delete_module"},
		{"swapon"}, {"reboot"}, {"acct"}, {"syslog"}, {"quotactl"},
	} {
		t.Run("syscalls/"+strings.Join(tt, " "), func(t *testing.T) {
			b.t = t
			b.denied(tt...)
		})
	}
	t.Run("syscalls/clone3 reports ENOSYS", func(t *testing.T) {
		b.t = t
		b.deniedWith("function not implemented", "clone3")
	})
	t.Run("syscalls/unshare of a non-namespace flag works", func(t *testing.T) {
		b.t = t
		b.allowed("unshare", "0x200") // CLONE_FS
	})
	t.Run("syscalls/personality query works", func(t *testing.T) {
		b.t = t
		b.allowed("personality", "0xffffffff")
	})
	t.Run("syscalls/threads and child processes work", func(t *testing.T) {
		b.t = t
		if out := b.mustSucceed("sort < /dev/null; (echo a; echo b) | sort -r | head -1; xargs -P2 -n1 echo <<< '1 2' | wc -l"); !strings.Contains(out, "b\n2") {
			t.Fatalf("got %q", out)
		}
	})
	t.Run("syscalls/unshare utility", func(t *testing.T) {
		b.t = t
		b.mustFail("unshare -U true", "")
	})
	t.Run("syscalls/setarch without randomisation", func(t *testing.T) {
		b.t = t
		b.mustFail("setarch -R true", "")
	})
}

// TestIsolationPlantedSymlink has a command swap a read-write directory
// inside the workspace for a link to a directory it may only read (the
// directory is a mount point inside, so it moves its parent away first):
// the next command must not get that directory read-write, which a root
// parent following the link would mount for it.
func TestIsolationPlantedSymlink(t *testing.T) {
	needIsolation(t)
	ws := t.TempDir()
	rw := filepath.Join(ws, "a", "cache")
	if err := os.MkdirAll(rw, 0o755); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir() // a sibling of ws
	canary := filepath.Join(outside, "canary")
	os.WriteFile(canary, []byte("outside"), 0o644)
	b := newBox(t, Policy{Workspace: ws, ReadWrite: []string{rw}, ReadOnly: []string{outside}}, nil)
	t.Run("symlink/plant from inside", func(t *testing.T) {
		b.t = t
		// A relative link: it also resolves inside the private root.
		b.mustSucceed("mv a a2 && mkdir a && ln -s ../../" + filepath.Base(outside) + " a/cache")
		if fi, err := os.Lstat(rw); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("the link was not planted: %v", err)
		}
	})
	t.Run("symlink/next command does not get the target", func(t *testing.T) {
		b.t = t
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		cmd, cleanup, err := b.sb.Command(ctx, b.ws, []string{"/bin/bash", "-c", "echo pwned > a/cache/canary"}, ChildEnv(os.Environ(), nil))
		if err == nil {
			defer cleanup()
			cmd.Run()
		} else if !strings.Contains(err.Error(), "symbolic links") {
			t.Fatalf("want a refusal naming the symbolic link, got %v", err)
		}
		if b, _ := os.ReadFile(canary); string(b) != "outside" {
			t.Fatalf("the file outside was written: %q", b)
		}
	})
}
