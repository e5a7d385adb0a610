//go:build linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// needLandlock skips, saying why, only when the kernel lacks Landlock.
func needLandlock(t *testing.T) Report {
	t.Helper()
	r := Probe()
	if !r.Available {
		t.Skipf("kernel has no Landlock: %s", r.Reason)
	}
	return r
}

func runConfined(t *testing.T, sb *Sandbox, dir, script string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, code, err := runCmd(t, ctx, sb, dir, []string{"/bin/bash", "-c", script}, ChildEnv(os.Environ(), nil))
	if err == nil && code != 0 {
		err = fmt.Errorf("exit status %d", code)
	}
	return out, err
}

func TestLandlockConfinesFilesAndNetwork(t *testing.T) {
	rep := needLandlock(t)
	t.Logf("Landlock ABI %d", rep.LandlockABI)
	ws := t.TempDir()
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.txt")
	if err := os.WriteFile(secret, []byte("outside-data"), 0o600); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	connect := fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo connected", port)

	closed, err := New(&Policy{Workspace: ws}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("read outside fails", func(t *testing.T) {
		out, err := runConfined(t, closed, ws, "cat "+secret)
		if err == nil || strings.Contains(out, "outside-data") {
			t.Fatalf("read outside the workspace succeeded: %q", out)
		}
		// Outside the policy a path is not even there: the private root
		// holds only what the policy grants.
		if !strings.Contains(out, "No such file or directory") {
			t.Fatalf("want the file to be absent, got %q", out)
		}
	})
	t.Run("write inside succeeds", func(t *testing.T) {
		out, err := runConfined(t, closed, ws, "echo hi > made.txt && mkdir -p d/e && mv made.txt d/e/ && cat d/e/made.txt")
		if err != nil || strings.TrimSpace(out) != "hi" {
			t.Fatalf("write inside the workspace failed: %v %q", err, out)
		}
	})
	t.Run("write outside fails", func(t *testing.T) {
		if out, err := runConfined(t, closed, ws, "echo x > "+filepath.Join(outside, "new.txt")); err == nil {
			t.Fatalf("write outside succeeded: %q", out)
		}
		if _, err := os.Stat(filepath.Join(outside, "new.txt")); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("file outside was created")
		}
	})
	t.Run("parent environment unreadable through /proc", func(t *testing.T) {
		// The parent's environment holds the provider keys the child's
		// environment was stripped of.
		out, err := runConfined(t, closed, ws, fmt.Sprintf("cat /proc/%d/environ", os.Getpid()))
		if err == nil || strings.Contains(out, "PATH=") || strings.Contains(out, "\x00") {
			t.Fatalf("read the parent's environment: %q", out)
		}
	})
	t.Run("private tmpdir is writable", func(t *testing.T) {
		out, err := runConfined(t, closed, ws, `echo t > "$TMPDIR/x" && cat "$TMPDIR/x"`)
		if err != nil || strings.TrimSpace(out) != "t" {
			t.Fatalf("TMPDIR not usable: %v %q", err, out)
		}
	})
	t.Run("tcp connect refused", func(t *testing.T) {
		out, err := runConfined(t, closed, ws, connect)
		if err == nil || strings.Contains(out, "connected") {
			t.Fatalf("connect succeeded with network denied: %q", out)
		}
		if !strings.Contains(out, "Permission denied") {
			t.Fatalf("want a permission error, got %q", out)
		}
	})
	t.Run("tcp connect allowed goes through the proxy only", func(t *testing.T) {
		open, err := New(&Policy{Workspace: ws, AllowNetwork: true}, &Options{ProxyAllow: func(netip.AddrPort) bool { return true }})
		if err != nil {
			t.Fatal(err)
		}
		// Direct: the network namespace has no route to the host.
		if out, err := runConfined(t, open, ws, connect); err == nil || strings.Contains(out, "connected") {
			t.Fatalf("direct connect succeeded with network allowed: %q", out)
		}
		out, err := runConfined(t, open, ws, proxyConnect(port))
		if err != nil || !strings.Contains(out, "200 Connection established") {
			t.Fatalf("connect through the proxy failed with network allowed: %v %q", err, out)
		}
	})
}

func TestProbeReportsABI(t *testing.T) {
	r := needLandlock(t)
	if r.Mechanism != linuxMechanism || r.LandlockABI < 1 || r.Platform != "linux" {
		t.Fatalf("probe: %+v", r)
	}
	for _, l := range r.Layers() {
		if !l.Available || l.Detail == "" {
			t.Errorf("layer %s: %+v", l.Name, l.Layer)
		}
		t.Logf("%s: %s", l.Name, l.Detail)
	}
}

func TestNewRefusesMissingWorkspace(t *testing.T) {
	if _, err := New(&Policy{Workspace: filepath.Join(t.TempDir(), "nope")}, nil); err == nil {
		t.Fatal("missing workspace accepted")
	}
	if _, err := New(&Policy{}, nil); err == nil {
		t.Fatal("empty policy accepted")
	}
}

// proxyConnect is a bash script that asks the sandbox's proxy, named by
// HTTP_PROXY, for a tunnel to 127.0.0.1:port and prints its status line.
func proxyConnect(port int) string {
	return fmt.Sprintf(`p=${HTTP_PROXY#http://}; exec 3<>/dev/tcp/${p%%:*}/${p##*:} && printf 'CONNECT 127.0.0.1:%d HTTP/1.1\r\nHost: x\r\n\r\n' >&3 && head -n1 <&3`, port)
}

// TestCommandFailsClosedWithoutIDMap asks, as root, for a workspace on a
// filesystem with no idmapped mounts (procfs). The idmapped mounts are
// made on the first command, so New succeeds; the command must be
// refused, naming the layer, rather than given the directory some other
// way, and nothing may run.
func TestCommandFailsClosedWithoutIDMap(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only a root parent needs idmapped mounts; this test runs as uid", os.Geteuid())
	}
	needLandlock(t)
	sb, err := New(&Policy{Workspace: "/proc/sys"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cmd, cleanup, err := sb.Command(context.Background(), "/proc/sys", []string{"/bin/true"}, nil)
	if err == nil {
		cleanup()
		t.Fatalf("got command %v; want ErrUnsupported naming idmapped mounts", cmd.Args)
	}
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "idmapped mounts") {
		t.Fatalf("got %v; want ErrUnsupported naming idmapped mounts", err)
	}
	t.Log(err)
}

// TestHelperEnvDoesNotReachTheCommand: the helper runs with GOMAXPROCS=1
// of its own, placed before the command's environment; the command sees
// exactly its own environment: no GOMAXPROCS when it has none, and its
// own value when it has one.
func TestHelperEnvDoesNotReachTheCommand(t *testing.T) {
	needLandlock(t)
	ws := t.TempDir()
	sb, err := New(&Policy{Workspace: ws}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		env  []string
		want string
	}{
		{[]string{"PATH=/usr/bin:/bin"}, "unset\n1\n"},
		{[]string{"PATH=/usr/bin:/bin", "GOMAXPROCS=7"}, "7\n1\n"},
	} {
		cmd, cleanup, err := sb.Command(context.Background(), ws, []string{"/bin/sh", "-c", `echo "${GOMAXPROCS-unset}"; env | grep -c '^PATH='`}, tt.env)
		if err != nil {
			t.Fatal(err)
		}
		out, err := cmd.Output()
		cleanup()
		if err != nil || string(out) != tt.want {
			t.Fatalf("env %q: got %q, %v; want %q", tt.env, out, err, tt.want)
		}
	}
}
