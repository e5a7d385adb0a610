package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/channels/telegram"
	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/providers/providertest"
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
	ap := chatApprover(ch, inb, "telegram:approve-test")
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
	ap = chatApprover(always, inb, "telegram:always-test")
	one := &sandbox.ApprovalRequest{Tool: "shell", Command: "ls", Dir: "/ws", SessionAllowed: false}
	if d, _ := ap.Approve(ctx, one); d != sandbox.Allow {
		t.Fatalf("always: first press gave %v", d)
	}
	if d, _ := ap.Approve(ctx, one); d != sandbox.Deny {
		t.Fatalf("always: the second command was not asked about: %v", d)
	}
}

func TestStatusReportsShellConfinement(t *testing.T) {
	clearProviderEnv(t)
	cfgPath := scriptedConfig(t, providertest.NewServer(t))
	saved := probeSandbox
	t.Cleanup(func() { probeSandbox = saved })
	probeSandbox = func() sandbox.Report {
		return sandbox.Report{Platform: "linux", Mechanism: "landlock", LandlockABI: 7, Available: true, CanDenyNetwork: true}
	}
	t.Setenv("JOSHBOT_TOOLS__SHELL_SANDBOX", "workspace")
	r := runCLI(t, "", "--config", cfgPath, "status")
	if r.code != 0 || !strings.Contains(r.stdout, "Shell: confined") || !strings.Contains(r.stdout, "Landlock ABI 7") {
		t.Fatalf("%+v", r)
	}
}

func TestCopilotLoginTokenIsExchangedBeforeUse(t *testing.T) {
	clearProviderEnv(t)
	gh := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "token gho_fromdeviceflow" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		fmt.Fprintf(w, `{"token":"tid=copilot-session","expires_at":%d}`, time.Now().Add(time.Hour).Unix())
	}))
	defer gh.Close()
	saved := copilotTokenURL
	copilotTokenURL = gh.URL
	t.Cleanup(func() { copilotTokenURL = saved })

	srv := providertest.NewServer(t)
	srv.RequireKey("tid=copilot-session")
	srv.Enqueue(providertest.Text("hello from copilot"))
	cfgPath := scriptedConfig(t, srv)
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Agents.Defaults.Provider = "github_copilot"
	cfg.Providers["github_copilot"] = config.Provider{APIBase: srv.URL(), APIKey: "gho_fromdeviceflow"}
	if err := config.Save(cfgPath, cfg); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, "", "--config", cfgPath, "agent", "-m", "hi")
	if r.code != 0 || r.stdout != "hello from copilot\n" {
		t.Fatalf("%+v", r)
	}
	if got := copilotCredential("openai", "gho_x"); got != nil {
		t.Fatal("only github_copilot exchanges its key")
	}
	if got := copilotCredential("github_copilot", "tid=already-a-session"); got != nil {
		t.Fatal("a Copilot API token must be sent as it is")
	}
}
