package gateway

import (
	"context"
	"strings"
	"testing"

	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/channels/channeltest"
	"github.com/joshbot/joshbot/sandbox"
)

// answering runs one approval through ap on its own goroutine, answers
// the prompt it posts on f with d, and returns the approver's decision and
// the prompt.
func answering(t *testing.T, f *channeltest.Fake, ap sandbox.Approver, req *sandbox.ApprovalRequest, d channels.Decision) (sandbox.Decision, channeltest.ApprovalRecord) {
	t.Helper()
	type result struct {
		d   sandbox.Decision
		err error
	}
	done := make(chan result, 1)
	go func() {
		d, err := ap.Approve(context.Background(), req)
		done <- result{d, err}
	}()
	rec := f.Await(t, "an approval prompt", func(r channeltest.Record) bool { return len(r.PendingApprovals()) == 1 })
	p := rec.PendingApprovals()[0]
	p.Answer(d)
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	return r.d, p
}

func TestChatApproverAsksInTheTurnsChat(t *testing.T) {
	ch := channeltest.NewFakeNamed("telegram")
	inb := channels.Inbound{Channel: "telegram", Conversation: "42", MessageID: "7:9"}
	g := &Gateway{}
	ap := g.chatApprover(ch, inb, "telegram:approve-test")
	req := &sandbox.ApprovalRequest{Tool: "shell", Command: "rm -rf build && make", Dir: "/ws/proj", Confined: true, SessionAllowed: true}

	var prompts []channeltest.ApprovalRecord
	for i, tt := range []struct {
		press channels.Decision
		want  sandbox.Decision
	}{
		{channels.DecisionDeny, sandbox.Deny},
		{channels.DecisionAllow, sandbox.Allow},
		{channels.DecisionAllowSession, sandbox.AllowSession},
	} {
		d, p := answering(t, ch, ap, req, tt.press)
		if d != tt.want {
			t.Fatalf("press %d: %v, want %v", i, d, tt.want)
		}
		prompts = append(prompts, p)
	}
	// After "allow for session" the human is not asked again.
	if d, _ := ap.Approve(context.Background(), req); d != sandbox.Allow || len(ch.Record().Approvals) != 3 {
		t.Fatalf("session allowance not kept: %v after %d prompts", d, len(ch.Record().Approvals))
	}
	for i, p := range prompts {
		if p.Conversation != "42" || !strings.Contains(p.Prompt, "rm -rf build && make") || !strings.Contains(p.Prompt, "/ws/proj") || !strings.Contains(p.Prompt, "sandbox") {
			t.Errorf("prompt %d lacks the chat, whole command, directory or confinement: %+v", i, p)
		}
		if !p.OfferSession {
			t.Errorf("prompt %d did not offer the session allowance under interactive", i)
		}
	}
	if prompts[0].RequestID == prompts[1].RequestID {
		t.Fatalf("request ids repeat: %q", prompts[0].RequestID)
	}

	// Under "always" a session press allows one command only.
	always := channeltest.NewFakeNamed("telegram")
	ap = g.chatApprover(always, inb, "telegram:always-test")
	one := &sandbox.ApprovalRequest{Tool: "shell", Command: "ls", Dir: "/ws", SessionAllowed: false}
	if d, _ := answering(t, always, ap, one, channels.DecisionAllowSession); d != sandbox.Allow {
		t.Fatalf("always: first press gave %v", d)
	}
	if d, _ := answering(t, always, ap, one, channels.DecisionDeny); d != sandbox.Deny {
		t.Fatalf("always: the second command was not asked about: %v", d)
	}
}
