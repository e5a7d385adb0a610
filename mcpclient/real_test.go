package mcpclient

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// npmServer returns the path of an MCP server installed from the npm
// registry by `make mcp-servers` (npm ci with the committed lock file), or
// skips saying how to install it.
func npmServer(t *testing.T, bin string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", "npm", "node_modules", ".bin", bin))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s is not installed (%v): run `make mcp-servers` (npm ci in mcpclient/testdata/npm); `make test` does it first", bin, err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skipf("node is not on PATH, so the npm MCP servers cannot run: %v", err)
	}
	return p
}

func TestRealEverythingServer(t *testing.T) {
	bin := npmServer(t, "mcp-server-everything")
	environ := append(os.Environ(), "OPENAI_API_KEY=sk-must-not-leak", "MY_DB_PASSWORD=hunter2")
	m, _ := startTrusted(t, &Options{Environ: environ}, Server{Name: "everything", Command: bin, CallTimeout: 3 * time.Second})
	st := statusOf(m, "everything")
	if st.State != StateTrusted || len(st.Tools) < 5 {
		t.Fatalf("%+v", st)
	}
	ctx := context.Background()
	for _, tt := range []struct {
		tool, args, want string
	}{
		{"mcp__everything__echo", `{"message":"hello from joshbot"}`, "Echo: hello from joshbot"},
		{"mcp__everything__get-sum", `{"a":2,"b":40}`, "42"},
	} {
		out, err := toolByName(t, m, tt.tool).Execute(ctx, json.RawMessage(tt.args))
		if err != nil || !strings.Contains(out, tt.want) || !strings.HasPrefix(out, "<tool_output ") {
			t.Errorf("%s: %q %v", tt.tool, out, err)
		}
	}
	out, err := toolByName(t, m, "mcp__everything__get-env").Execute(ctx, nil)
	if err != nil || !strings.Contains(out, "PATH") {
		t.Fatalf("get-env: %v", err)
	}
	for _, secret := range []string{"sk-must-not-leak", "hunter2"} {
		if strings.Contains(out, secret) {
			t.Errorf("%s reached the server's environment", secret)
		}
	}
	start := time.Now()
	_, err = toolByName(t, m, "mcp__everything__trigger-long-running-operation").Execute(ctx, json.RawMessage(`{"duration":20,"steps":4}`))
	if err == nil || !strings.Contains(err.Error(), "no answer within 3s") {
		t.Fatalf("long-running operation: %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("the call cap did not hold: %s", d)
	}
	if st := statusOf(m, "everything"); st.State != StateSuspect {
		t.Fatalf("after a timed-out call: %s, want suspect", brief(st))
	}
	if out, err := toolByName(t, m, "mcp__everything__echo").Execute(ctx, json.RawMessage(`{"message":"still here"}`)); err != nil || !strings.Contains(out, "still here") {
		t.Fatalf("after a timed-out call: %q %v", out, err)
	}
	// It answered its health check: kept, not restarted.
	if st := statusOf(m, "everything"); st.State != StateTrusted || st.Restarts != 0 {
		t.Fatalf("a live server after its health check: %s", brief(st))
	}
}

// serverPid is the pid of the process behind server name's live
// connection.
func serverPid(t *testing.T, m *Manager, name string) int {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range m.servers {
		if s.cfg.Name != name {
			continue
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.cur != nil && s.cur.proc != nil {
			if p := s.cur.proc.process(); p != nil {
				return p.cmd.Process.Pid
			}
		}
	}
	t.Fatalf("no live process for %s", name)
	return 0
}

// A real server that wedges (stopped by a signal, so nothing answers) is
// healed by the call after the one that timed out: a failed health check,
// its process group killed, a new process that answers.
func TestRealWedgedServerIsRestarted(t *testing.T) {
	bin := npmServer(t, "mcp-server-everything")
	m, _ := startTrusted(t, &Options{HealthTimeout: time.Second}, Server{Name: "everything", Command: bin, CallTimeout: 2 * time.Second})
	ctx := context.Background()
	// Past its start-up chatter first (it announces a tools change once
	// initialized, and a call waits for that check).
	if _, err := toolByName(t, m, "mcp__everything__echo").Execute(ctx, json.RawMessage(`{"message":"up"}`)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	pid := serverPid(t, m, "everything")
	if err := syscall.Kill(-pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	_, err := toolByName(t, m, "mcp__everything__echo").Execute(ctx, json.RawMessage(`{"message":"stuck"}`))
	if err == nil || !strings.Contains(err.Error(), "no answer within 2s") {
		t.Fatalf("call to the wedged server: %v", err)
	}
	start := time.Now()
	out, err := toolByName(t, m, "mcp__everything__echo").Execute(ctx, json.RawMessage(`{"message":"healed"}`))
	if err != nil || !strings.Contains(out, "Echo: healed") {
		t.Fatalf("the call after: %q %v; %s", out, err, brief(statusOf(m, "everything")))
	}
	t.Logf("healing call took %s", time.Since(start))
	if !gone(pid) {
		t.Fatalf("the wedged process %d is still there", pid)
	}
	if st := statusOf(m, "everything"); st.State != StateTrusted || st.Restarts != 1 {
		t.Fatalf("after healing: %s", brief(st))
	}
	if serverPid(t, m, "everything") == pid {
		t.Fatal("the same process still serves")
	}
}

func TestRealFilesystemServer(t *testing.T) {
	bin := npmServer(t, "mcp-server-filesystem")
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "note.txt"), []byte("the filesystem server read this"), 0o600)
	m, _ := startTrusted(t, nil, Server{Name: "fs", Command: bin, Args: []string{dir}})
	args, _ := json.Marshal(map[string]string{"path": filepath.Join(dir, "note.txt")})
	out, err := toolByName(t, m, "mcp__fs__read_text_file").Execute(context.Background(), args)
	if err != nil || !strings.Contains(out, "the filesystem server read this") {
		t.Fatalf("%q %v", out, err)
	}
	// Outside its allowed directory the server refuses, and that refusal
	// comes back as a fenced error.
	args, _ = json.Marshal(map[string]string{"path": "/etc/hostname"})
	if _, err := toolByName(t, m, "mcp__fs__read_text_file").Execute(context.Background(), args); err == nil || !strings.Contains(err.Error(), "<tool_output") {
		t.Fatalf("outside the allowed directory: %v", err)
	}
}

func TestRealManifestChangeRevokes(t *testing.T) {
	everything, filesystem := npmServer(t, "mcp-server-everything"), npmServer(t, "mcp-server-filesystem")
	_, store := startTrusted(t, nil, Server{Name: "srv", Command: everything})
	// The same name now advertises another manifest, as after an upgrade.
	m := NewManager(&Options{Trust: store})
	defer m.Close()
	m.Start(context.Background(), []Server{{Name: "srv", Command: filesystem, Args: []string{t.TempDir()}}})
	st := statusOf(m, "srv")
	if st.State != StateRevoked || len(m.Tools()) != 0 || !strings.Contains(st.Reason, "joshbot mcp trust srv") {
		t.Fatalf("%+v", st)
	}
	if v, _, _ := store.Check("srv", st.ApprovedSHA256); v != Revoked {
		t.Fatalf("approval of the old manifest still stands: %v", v)
	}
}

func TestRealEverythingServerOverStreamableHTTP(t *testing.T) {
	bin := npmServer(t, "mcp-server-everything")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, "streamableHttp")
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	for deadline := time.Now().Add(15 * time.Second); ; {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server never listened on %s: %v", addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	url := "http://" + addr + "/mcp"

	refused := NewManager(nil)
	refused.Start(context.Background(), []Server{{Name: "web", URL: url}})
	refused.Close()
	if st := statusOf(refused, "web"); st.State != StateFailed || !strings.Contains(st.Reason, "not public") {
		t.Fatalf("loopback without allow_private: %+v", st)
	}

	m, _ := startTrusted(t, nil, Server{Name: "web", URL: url, AllowPrivate: true})
	out, err := toolByName(t, m, "mcp__web__echo").Execute(context.Background(), json.RawMessage(`{"message":"over streamable http"}`))
	if err != nil || !strings.Contains(out, "Echo: over streamable http") {
		t.Fatalf("%q %v", out, err)
	}
}
