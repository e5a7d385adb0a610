package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// manualClock is an injected clock for the restart window.
type manualClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *manualClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// brief is a status without its tool list, for failure messages.
func brief(st Status) string {
	return fmt.Sprintf("state %s (%s), %d/%d restarts, last error %q, retry at %v", st.State, st.Reason, st.Restarts, st.RestartBudget, st.LastError, st.RetryAt)
}

func echoOK(t *testing.T, m *Manager, name, text string) {
	t.Helper()
	out, err := toolByName(t, m, "mcp__"+name+"__echo").Execute(context.Background(), json.RawMessage(`{"text":"`+text+`"}`))
	if err != nil || !strings.Contains(out, "echo: "+text) {
		t.Fatalf("echo %q: %q, %v; status %s", text, out, err, brief(statusOf(m, name)))
	}
}

// A server wedged by a call (it stops answering anything) is marked
// suspect by the timed-out call; the next call finds it dead by a short
// health check, kills its whole process group, restarts it, and is
// answered by the new process.
func TestWedgedServerIsRestartedByTheNextCall(t *testing.T) {
	dir := t.TempDir()
	decl := selfServer(t, "h", "good", map[string]string{"MCPTEST_PIDDIR": dir, "MCPTEST_GRANDCHILD": "1"})
	decl.CallTimeout = 500 * time.Millisecond
	m, _ := startTrusted(t, &Options{HealthTimeout: 300 * time.Millisecond}, decl)
	pid, grandchild := readPid(t, filepath.Join(dir, "server.pid")), readPid(t, filepath.Join(dir, "grandchild.pid"))

	_, err := toolByName(t, m, "mcp__h__freeze").Execute(context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), "no answer within 500ms") {
		t.Fatalf("freeze: %v", err)
	}
	st := statusOf(m, "h")
	if st.State != StateSuspect || !strings.Contains(st.LastError, "no answer within 500ms") || st.Restarts != 0 {
		t.Fatalf("after the timed-out call: %s, want suspect with the timeout as last error", brief(st))
	}

	start := time.Now()
	echoOK(t, m, "h", "healed")
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the healing call took %s", d)
	}
	if !gone(pid) || !gone(grandchild) {
		t.Fatalf("the wedged server (%d) or what it started (%d) is still there", pid, grandchild)
	}
	st = statusOf(m, "h")
	if st.State != StateTrusted || st.Restarts != 1 || !strings.Contains(st.LastError, "health check") {
		t.Fatalf("after the restart: %s, want trusted, 1 restart, the failed health check as last error", brief(st))
	}
	echoOK(t, m, "h", "again")
}

// A server that is merely slow answers the health check and is kept.
func TestSlowServerPassesTheHealthCheck(t *testing.T) {
	dir := t.TempDir()
	decl := selfServer(t, "h", "good", map[string]string{"MCPTEST_PIDDIR": dir})
	decl.CallTimeout = 300 * time.Millisecond
	m, _ := startTrusted(t, nil, decl)
	pid := readPid(t, filepath.Join(dir, "server.pid"))
	if _, err := toolByName(t, m, "mcp__h__slow").Execute(context.Background(), json.RawMessage(`{"seconds":30}`)); err == nil {
		t.Fatal("a 30 s call under a 300 ms bound succeeded")
	}
	if st := statusOf(m, "h"); st.State != StateSuspect {
		t.Fatalf("after the timed-out call: %s", brief(st))
	}
	echoOK(t, m, "h", "still here")
	if st := statusOf(m, "h"); st.State != StateTrusted || st.Restarts != 0 {
		t.Fatalf("a server that answered its health check: %s, want trusted with no restart", brief(st))
	}
	if err := syscall.Kill(pid, 0); err != nil || readPid(t, filepath.Join(dir, "server.pid")) != pid {
		t.Fatalf("the slow server was replaced (%v)", err)
	}
}

// Restarts are budgeted: past the budget the server is failed until the
// window passes, and a call after that restarts it again.
func TestRestartBudget(t *testing.T) {
	clock := &manualClock{now: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}
	decl := selfServer(t, "h", "good", nil)
	decl.CallTimeout = 400 * time.Millisecond
	m, _ := startTrusted(t, &Options{HealthTimeout: 200 * time.Millisecond, RestartBudget: 2, RestartWindow: 10 * time.Minute, Now: clock.Now}, decl)
	freeze := func() {
		t.Helper()
		t0 := time.Now()
		out, err := toolByName(t, m, "mcp__h__freeze").Execute(context.Background(), nil)
		t.Logf("freeze took %s: %v", time.Since(t0), err)
		if err == nil {
			t.Fatalf("freeze answered %q; %s", out, brief(statusOf(m, "h")))
		}
	}
	for i := 1; i <= 2; i++ {
		freeze()
		clock.Advance(time.Minute)
		echoOK(t, m, "h", "round")
		if st := statusOf(m, "h"); st.Restarts != i {
			t.Fatalf("round %d: %s", i, brief(st))
		}
	}
	freeze()
	_, err := toolByName(t, m, "mcp__h__echo").Execute(context.Background(), json.RawMessage(`{"text":"x"}`))
	if err == nil || !strings.Contains(err.Error(), "restarted 2 times in 10m0s") {
		t.Fatalf("past the budget: %v", err)
	}
	st := statusOf(m, "h")
	if st.State != StateFailed || st.Restarts != 2 || !st.RetryAt.Equal(time.Date(2026, 1, 1, 12, 11, 0, 0, time.UTC)) {
		t.Fatalf("past the budget: %s, want failed until 12:11 (the first restart, 12:01, plus the window) with 2 restarts used", brief(st))
	}
	// Until the window passes, calls fail at once.
	start := time.Now()
	if _, err := toolByName(t, m, "mcp__h__echo").Execute(context.Background(), nil); err == nil || time.Since(start) > time.Second {
		t.Fatalf("while failed: %v after %s", err, time.Since(start))
	}
	clock.Advance(9 * time.Minute)
	echoOK(t, m, "h", "back")
	if st := statusOf(m, "h"); st.State != StateTrusted || st.Restarts != 2 {
		t.Fatalf("after the window: %s, want trusted with 2 restarts in the window (12:02 and 12:11)", brief(st))
	}
}
