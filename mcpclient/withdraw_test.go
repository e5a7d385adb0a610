package mcpclient

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

// withdrawals collects the notices of a manager for a test.
func withdrawals() (*Options, chan Withdrawal) {
	ch := make(chan Withdrawal, 8)
	return &Options{OnWithdraw: func(w Withdrawal) { ch <- w }}, ch
}

func toolNames(ts []*Tool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name())
	}
	return out
}

func nextWithdrawal(t *testing.T, ch chan Withdrawal) Withdrawal {
	t.Helper()
	select {
	case w := <-ch:
		return w
	case <-time.After(10 * time.Second):
		t.Fatal("no withdrawal notice within 10s")
		return Withdrawal{}
	}
}

func noWithdrawal(t *testing.T, ch chan Withdrawal, when string) {
	t.Helper()
	select {
	case w := <-ch:
		t.Fatalf("%s: unexpected withdrawal %+v", when, w)
	default:
	}
}

func TestRevocationMidSessionIsAnnouncedOnce(t *testing.T) {
	opts, ch := withdrawals()
	m, _ := startTrusted(t, opts, selfServer(t, "h", "good", nil))
	offered := toolNames(m.Tools())
	if len(offered) < 2 {
		t.Fatalf("offered %v", offered)
	}
	noWithdrawal(t, ch, "after start")
	echo := toolByName(t, m, "mcp__h__echo")
	if _, err := toolByName(t, m, "mcp__h__grow").Execute(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	w := nextWithdrawal(t, ch)
	if w.Server != "h" || w.State != StateRevoked || !slices.Equal(w.Tools, offered) {
		t.Fatalf("withdrawal %+v, want server h revoked with tools %v", w, offered)
	}
	if slices.ContainsFunc(w.Tools, func(n string) bool { return strings.Contains(n, "sneaky") }) {
		t.Fatalf("the notice names a tool that was never offered: %v", w.Tools)
	}
	if !strings.Contains(w.Reason, "changed mid-session") || !strings.Contains(w.Reason, "joshbot mcp trust h") {
		t.Fatalf("reason %q", w.Reason)
	}
	// A tool handed out before still answers, with an error that says it
	// is gone for good and how to get it back.
	_, err := echo.Execute(context.Background(), json.RawMessage(`{"text":"x"}`))
	if err == nil || !strings.Contains(err.Error(), "tool mcp__h__echo is no longer available: mcp server \"h\" was revoked") || !strings.Contains(err.Error(), "joshbot mcp trust h") || strings.Contains(err.Error(), "sneaky") {
		t.Fatalf("call after revocation: %v", err)
	}
	m.Close()
	noWithdrawal(t, ch, "after Close")
}

func TestFailureForGoodIsAnnouncedOnce(t *testing.T) {
	opts, ch := withdrawals()
	m, _ := startTrusted(t, opts, selfServer(t, "h", "good", nil))
	waits := instantRestarts(m)
	offered := toolNames(m.Tools())
	die := toolByName(t, m, "mcp__h__die")

	// The first death is followed by a restart: nothing is withdrawn.
	die.Execute(context.Background(), nil)
	<-waits
	waitState(t, m, "h", StateTrusted)
	noWithdrawal(t, ch, "after the restart")

	die.Execute(context.Background(), nil)
	waitState(t, m, "h", StateFailed)
	w := nextWithdrawal(t, ch)
	if w.Server != "h" || w.State != StateFailed || !slices.Equal(w.Tools, offered) || !strings.Contains(w.Reason, "after its one restart") {
		t.Fatalf("withdrawal %+v, want server h failed with tools %v", w, offered)
	}
	_, err := die.Execute(context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), "tool mcp__h__die is no longer available: mcp server \"h\" failed") {
		t.Fatalf("call after failure: %v", err)
	}
	m.Close()
	noWithdrawal(t, ch, "after Close")
}

func TestNeverTrustedIsNotAnnounced(t *testing.T) {
	opts, ch := withdrawals()
	m := NewManager(opts)
	defer m.Close()
	if err := m.Start(context.Background(), []Server{selfServer(t, "h", "good", nil)}); err != nil {
		t.Fatal(err)
	}
	if st := statusOf(m, "h"); st.State != StateUntrusted {
		t.Fatalf("%+v", st)
	}
	m.Close()
	noWithdrawal(t, ch, "untrusted server")
}
