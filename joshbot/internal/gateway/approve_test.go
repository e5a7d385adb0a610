package gateway

import (
	"context"
	"strings"
	"testing"

	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/channels/telegram"
	"github.com/joshbot/joshbot/sandbox"
)

// approvingChannel answers approval prompts from a script and records them.
type approvingChannel struct {
	liveChannel
	answers []telegram.Decision
	prompts []string
	ids     []string
	offered []bool
}

func (c *approvingChannel) Approve(_ context.Context, conversation, id, prompt string, offer bool) (telegram.Decision, error) {
	c.prompts = append(c.prompts, conversation+"|"+prompt)
	c.ids = append(c.ids, id)
	c.offered = append(c.offered, offer)
	d := c.answers[0]
	c.answers = c.answers[1:]
	return d, nil
}

func TestChatApproverAsksInTheTurnsChat(t *testing.T) {
	ch := &approvingChannel{answers: []telegram.Decision{telegram.DecisionDeny, telegram.DecisionAllow, telegram.DecisionAllowSession}}
	inb := channels.Inbound{Channel: "telegram", Conversation: "42", MessageID: "7:9"}
	g := &Gateway{}
	ap := g.chatApprover(ch, inb, "telegram:approve-test")
	ctx := context.Background()
	req := &sandbox.ApprovalRequest{Tool: "shell", Command: "rm -rf build && make", Dir: "/ws/proj", Confined: true, SessionAllowed: true}

	for i, want := range []sandbox.Decision{sandbox.Deny, sandbox.Allow, sandbox.AllowSession} {
		d, err := ap.Approve(ctx, req)
		if err != nil || d != want {
			t.Fatalf("press %d: %v %v, want %v", i, d, err, want)
		}
	}
	// After "allow for session" the human is not asked again.
	if d, _ := ap.Approve(ctx, req); d != sandbox.Allow || len(ch.prompts) != 3 {
		t.Fatalf("session allowance not kept: %v after %d prompts", d, len(ch.prompts))
	}
	for i, p := range ch.prompts {
		if !strings.HasPrefix(p, "42|") || !strings.Contains(p, "rm -rf build && make") || !strings.Contains(p, "/ws/proj") || !strings.Contains(p, "sandbox") {
			t.Errorf("prompt %d lacks the chat, whole command, directory or confinement: %q", i, p)
		}
		if !ch.offered[i] {
			t.Errorf("prompt %d did not offer the session allowance under interactive", i)
		}
	}
	if ch.ids[0] == ch.ids[1] {
		t.Fatalf("request ids repeat: %v", ch.ids)
	}

	// Under "always" a session press allows one command only.
	always := &approvingChannel{answers: []telegram.Decision{telegram.DecisionAllowSession, telegram.DecisionDeny}}
	ap = g.chatApprover(always, inb, "telegram:always-test")
	one := &sandbox.ApprovalRequest{Tool: "shell", Command: "ls", Dir: "/ws", SessionAllowed: false}
	if d, _ := ap.Approve(ctx, one); d != sandbox.Allow {
		t.Fatalf("always: first press gave %v", d)
	}
	if d, _ := ap.Approve(ctx, one); d != sandbox.Deny {
		t.Fatalf("always: the second command was not asked about: %v", d)
	}
}
