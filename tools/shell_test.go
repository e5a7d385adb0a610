package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/joshbot/joshbot/sandbox"
)

// fakeEnviron is the parent environment the shell sees in tests: real
// enough to run commands, with secrets that must never reach a child.
func fakeEnviron() []string {
	return []string{
		"PATH=" + os.Getenv("PATH"), "HOME=/nonexistent-home", "LANG=C",
		"OPENAI_API_KEY=sk-testsecret-0123456789abcdefABCDEF",
		"ANTHROPIC_API_KEY=sk-ant-testsecret-0123456789",
		"GITHUB_TOKEN=ghp_testsecret0123456789abcdefghijklmnop",
		"JOSHBOT_PROVIDERS__OPENROUTER__API_KEY=sk-or-v1-testsecret",
		"DB_PASSWORD=hunter2-testsecret",
	}
}

func newShellT(t *testing.T, o ShellOptions) (*Shell, string) {
	t.Helper()
	if o.Workspace == "" {
		ws, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		o.Workspace = ws
	}
	if o.Environ == nil {
		o.Environ = fakeEnviron
	}
	s, err := NewShell(&o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		s.WaitJobs(ctx)
	})
	return s, o.Workspace
}

func denyScreen(t *testing.T, ws string) *sandbox.Screener {
	t.Helper()
	scr, err := sandbox.NewScreener(&sandbox.ScreenOptions{Mode: sandbox.ScreenDenylist, Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	return scr
}

func shellArgsJSON(cmd string, extra ...string) json.RawMessage {
	b, _ := json.Marshal(cmd)
	s := `{"command":` + string(b)
	for _, e := range extra {
		s += "," + e
	}
	return json.RawMessage(s + "}")
}

func TestShellAllowlistByDefaultWithoutSandbox(t *testing.T) {
	s, ws := newShellT(t, ShellOptions{})
	os.WriteFile(filepath.Join(ws, "hello.txt"), []byte("hi there\n"), 0o644)
	for _, tt := range []struct {
		cmd     string
		want    string
		wantErr string
	}{
		{"cat hello.txt", "exit code: 0\nhi there", ""},
		{"ls nope", "exit code: 2", ""},
		{"touch x", "", "not on the allowlist"},
		{"cat hello.txt; touch x", "", "\"touch\" is not on the allowlist"},
		{"cat hello.txt && touch x", "", "\"touch\" is not on the allowlist"},
		{"touch x # cat", "", "not on the allowlist"},
	} {
		t.Run(tt.cmd, func(t *testing.T) {
			out, err := s.Execute(context.Background(), shellArgsJSON(tt.cmd))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %q, %v; want error containing %q", out, err, tt.wantErr)
				}
				if _, err := os.Stat(filepath.Join(ws, "x")); err == nil {
					t.Fatal("refused command ran")
				}
				return
			}
			if err != nil || !strings.HasPrefix(unfence(out), tt.want) {
				t.Fatalf("got %q, %v; want prefix %q", out, err, tt.want)
			}
		})
	}
}

// TestShellSecretsNeverReachChild greps the child's whole environment for
// every secret of the fake parent environment.
func TestShellSecretsNeverReachChild(t *testing.T) {
	s, ws := newShellT(t, ShellOptions{})
	s.screen = denyScreen(t, ws)
	out, err := s.Execute(context.Background(), shellArgsJSON("env"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "PATH=") || !strings.Contains(out, "LANG=C") {
		t.Fatalf("ordinary variables missing from child env: %q", out)
	}
	for _, kv := range fakeEnviron() {
		name, val, _ := strings.Cut(kv, "=")
		if strings.Contains(val, "testsecret") && (strings.Contains(out, val) || strings.Contains(out, name+"=")) {
			t.Fatalf("secret %s reached the child:\n%s", name, out)
		}
	}
	if strings.Contains(out, "testsecret") {
		t.Fatalf("secret material in child output:\n%s", out)
	}
}

func TestShellApprovalGate(t *testing.T) {
	allow := sandbox.ApproverFunc(func(context.Context, *sandbox.ApprovalRequest) (sandbox.Decision, error) { return sandbox.Allow, nil })
	deny := sandbox.ApproverFunc(func(context.Context, *sandbox.ApprovalRequest) (sandbox.Decision, error) { return sandbox.Deny, nil })
	eof := sandbox.ApproverFunc(func(context.Context, *sandbox.ApprovalRequest) (sandbox.Decision, error) {
		return sandbox.Allow, errors.New("read approval: EOF")
	})
	for _, tt := range []struct {
		name     string
		approver sandbox.Approver // nil: none installed
		async    bool
		ran      bool
		wantErr  string
	}{
		{"no approver installed denies", nil, false, false, "no human approver"},
		{"no approver installed denies async too", nil, true, false, "no human approver"},
		{"explicit allow runs", allow, false, true, ""},
		{"explicit allow runs async", allow, true, true, ""},
		{"explicit deny", deny, false, false, "denied"},
		{"explicit deny async", deny, true, false, "denied"},
		{"approver error denies", eof, false, false, "EOF"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, ws := newShellT(t, ShellOptions{Approval: ApprovalAlways})
			s.screen = denyScreen(t, ws)
			ctx := context.Background()
			if tt.approver != nil {
				ctx = sandbox.WithApprover(ctx, tt.approver)
			}
			var extra []string
			if tt.async {
				extra = append(extra, `"async":true`)
			}
			out, err := s.Execute(ctx, shellArgsJSON("touch ran", extra...))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %q, %v; want error containing %q", out, err, tt.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			s.WaitJobs(context.Background())
			_, statErr := os.Stat(filepath.Join(ws, "ran"))
			if ran := statErr == nil; ran != tt.ran {
				t.Fatalf("command ran = %v, want %v (output %q)", ran, tt.ran, out)
			}
		})
	}
}

func TestShellApprovalSeesWholeCommandAndDeadlineDenies(t *testing.T) {
	s, ws := newShellT(t, ShellOptions{Approval: ApprovalInteractive})
	s.screen = denyScreen(t, ws)
	var got *sandbox.ApprovalRequest
	ctx := sandbox.WithApprover(context.Background(), sandbox.ApproverFunc(func(_ context.Context, r *sandbox.ApprovalRequest) (sandbox.Decision, error) {
		got = r
		return sandbox.AllowSession, nil
	}))
	cmd := "echo one two --flag=three > out.txt"
	if _, err := s.Execute(ctx, shellArgsJSON(cmd)); err != nil {
		t.Fatal(err)
	}
	if got == nil || got.Command != cmd || got.Dir != ws || !got.SessionAllowed || got.Tool != "shell" {
		t.Fatalf("approval request %+v; want the whole command %q and dir %q", got, cmd, ws)
	}

	// A human who never answers: the turn's deadline denies.
	ctx2, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	ctx2 = sandbox.WithApprover(ctx2, sandbox.ApproverFunc(func(ctx context.Context, _ *sandbox.ApprovalRequest) (sandbox.Decision, error) {
		<-ctx.Done()
		return sandbox.Deny, ctx.Err()
	}))
	if _, err := s.Execute(ctx2, shellArgsJSON("touch late")); err == nil {
		t.Fatal("command ran without an answer")
	}
	if _, err := os.Stat(filepath.Join(ws, "late")); err == nil {
		t.Fatal("command ran after the deadline")
	}
}

// TestShellScreenBeforePrompt: a command the screen refuses never reaches
// the human.
func TestShellScreenBeforePrompt(t *testing.T) {
	s, _ := newShellT(t, ShellOptions{Approval: ApprovalAlways})
	var asked atomic.Int32
	ctx := sandbox.WithApprover(context.Background(), sandbox.ApproverFunc(func(context.Context, *sandbox.ApprovalRequest) (sandbox.Decision, error) {
		asked.Add(1)
		return sandbox.Allow, nil
	}))
	for _, cmd := range []string{"sudo id", "ls; id", "bash -c id"} {
		if _, err := s.Execute(ctx, shellArgsJSON(cmd)); !errors.Is(err, sandbox.ErrRefused) {
			t.Fatalf("%q: got %v, want ErrRefused", cmd, err)
		}
	}
	if n := asked.Load(); n != 0 {
		t.Fatalf("approver asked %d times about refused commands", n)
	}
}

func TestShellTimeoutAndOutputCap(t *testing.T) {
	s, ws := newShellT(t, ShellOptions{MaxOutput: 1024})
	s.screen = denyScreen(t, ws)
	start := time.Now()
	_, err := s.Execute(context.Background(), shellArgsJSON("sleep 30", `"timeout_seconds":1`))
	if err == nil || !strings.Contains(err.Error(), "timed out") {
		t.Fatalf("got %v, want a timeout", err)
	}
	if time.Since(start) > 10*time.Second {
		t.Fatalf("timeout took %s", time.Since(start))
	}
	out, err := s.Execute(context.Background(), shellArgsJSON("head -c 5000 /dev/zero | tr '\\0' a"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "output truncated: 3976 more bytes") {
		t.Fatalf("output not capped: %d bytes, tail %q", len(out), out[max(0, len(out)-80):])
	}
	if _, err := s.Execute(context.Background(), shellArgsJSON("ls", `"timeout_seconds":9999`)); err == nil {
		t.Fatal("timeout above the maximum accepted")
	}
	if _, err := s.Execute(context.Background(), shellArgsJSON("ls", `"workdir":"../.."`)); err == nil {
		t.Fatal("workdir outside the workspace accepted")
	}
}

func TestShellAsyncJob(t *testing.T) {
	s, ws := newShellT(t, ShellOptions{})
	s.screen = denyScreen(t, ws)
	out, err := s.Execute(context.Background(), shellArgsJSON("echo background", `"async":true`))
	if err != nil || !strings.Contains(out, "job-1") {
		t.Fatalf("got %q, %v", out, err)
	}
	s.WaitJobs(context.Background())
	st, err := s.Execute(context.Background(), json.RawMessage(`{"job_id":"job-1"}`))
	if err != nil || !strings.Contains(st, "finished") || !strings.Contains(st, "background") {
		t.Fatalf("job status %q, %v", st, err)
	}
	if _, err := s.Execute(context.Background(), json.RawMessage(`{"job_id":"job-9"}`)); err == nil {
		t.Fatal("unknown job accepted")
	}
}

// TestShellSandboxWorkspaceMode runs the shell tool in workspace mode on
// this kernel: reads outside the workspace fail, writes inside succeed,
// and a TCP connect to a listener on the host's loopback is refused with
// the network denied and still refused with it allowed (connections then
// leave only through the sandbox's proxy, which refuses loopback). The
// connect runs from a script file, which the screen lets through: the
// screen is hardening, the sandbox is the wall.
func TestShellSandboxWorkspaceMode(t *testing.T) {
	rep := sandbox.Probe()
	if !rep.Available {
		t.Skipf("no sandbox on this system: %s", rep.Reason)
	}
	if rep.Platform != "linux" {
		t.Skipf("this test drives the Linux sandbox; the system offers %s", rep.Mechanism)
	}
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	secret := filepath.Join(outside, "outside.txt")
	os.WriteFile(secret, []byte("OUTSIDE-CANARY"), 0o600)
	os.WriteFile(filepath.Join(ws, "probe.sh"), []byte("exec 3<>/dev/tcp/127.0.0.1/$1 && echo connected\n"), 0o644)

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

	shellFor := func(allowNet bool) *Shell {
		sb, err := sandbox.New(&sandbox.Policy{Workspace: ws, AllowNetwork: allowNet}, nil)
		if err != nil {
			t.Fatal(err)
		}
		s, _ := newShellT(t, ShellOptions{Workspace: ws, Sandbox: sb})
		return s
	}
	closed := shellFor(false)
	exec := func(s *Shell, cmd string) string {
		out, err := s.Execute(context.Background(), shellArgsJSON(cmd))
		if err != nil {
			t.Fatalf("%q: %v", cmd, err)
		}
		return out
	}
	if out := exec(closed, "cat "+secret); strings.Contains(out, "OUTSIDE-CANARY") || strings.HasPrefix(out, "exit code: 0") {
		t.Fatalf("read outside the workspace: %q", out)
	}
	if out := exec(closed, "echo inside > made.txt && cat made.txt"); unfence(out) != "exit code: 0\ninside\n" {
		t.Fatalf("write inside: %q", out)
	}
	probe := fmt.Sprintf("bash probe.sh %d", port)
	if out := exec(closed, probe); strings.Contains(out, "connected") || strings.HasPrefix(out, "exit code: 0") {
		t.Fatalf("connect with network denied: %q", out)
	}
	if out := exec(shellFor(true), probe); strings.Contains(out, "connected") || strings.HasPrefix(out, "exit code: 0") {
		t.Fatalf("direct connect to the host's loopback with network allowed: %q", out)
	}
	if out := exec(shellFor(true), `curl -sS -m 5 http://127.0.0.1:`+fmt.Sprint(port)+`/`); !strings.Contains(out, "403") && !strings.Contains(out, "not public") {
		t.Fatalf("the proxy let a request reach loopback: %q", out)
	}
}

func TestShellCloseKillsJobs(t *testing.T) {
	s, ws := newShellT(t, ShellOptions{})
	s.screen = denyScreen(t, ws)
	if _, err := s.Execute(context.Background(), shellArgsJSON("sleep 30 && touch finished", `"async":true`)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	s.Close()
	if time.Since(start) > 10*time.Second {
		t.Fatal("Close waited for the job instead of killing it")
	}
	st, err := s.Execute(context.Background(), json.RawMessage(`{"job_id":"job-1"}`))
	if err == nil && !strings.Contains(st, "finished") {
		t.Fatalf("job still running after Close: %q", st)
	}
	if _, err := s.Execute(context.Background(), shellArgsJSON("echo x", `"async":true`)); err == nil {
		t.Fatal("a job started after Close")
	}
	if _, err := os.Stat(filepath.Join(ws, "finished")); err == nil {
		t.Fatal("the killed job ran to the end")
	}
}

func TestShellHasNoTerminal(t *testing.T) {
	s, ws := newShellT(t, ShellOptions{})
	s.screen = denyScreen(t, ws)
	out, err := s.Execute(context.Background(), shellArgsJSON("cat /dev/tty"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(out, "exit code: 0") {
		t.Fatalf("the command could open the terminal: %q", out)
	}
	// The shell leads a session of its own (field 6 of /proc/PID/stat is
	// the session id), so it has no controlling terminal whatever the
	// parent has.
	out, err = s.Execute(context.Background(), shellArgsJSON("set -- $(cat /proc/$$/stat); echo $$ $6"))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(strings.TrimPrefix(unfence(out), "exit code: 0\n"))
	if len(f) != 2 || f[0] != f[1] {
		t.Fatalf("the shell is not a session leader: %q", out)
	}
}
