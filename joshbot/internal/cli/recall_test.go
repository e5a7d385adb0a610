package cli

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/channels/channeltest"
	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/gateway"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/providers/providertest"
)

// recallModel answers every turn with "ok" and every learning request with
// the tea fact when the exchange mentions oolong, no fact otherwise.
func recallModel(r providertest.Request) providertest.Reply {
	last := r.Messages[len(r.Messages)-1].Content
	if strings.HasPrefix(last, "Known facts:") {
		if strings.Contains(last, "oolong") {
			return providertest.Text(`{"facts": ["The user takes oolong tea, no sugar"]}`)
		}
		return providertest.Text(`{"facts": []}`)
	}
	return providertest.Text("ok")
}

// gatewayTurn runs the gateway in-process with a fake Telegram channel,
// delivers msg, and returns once the reply is sent and the turn's learning
// has finished (the gateway drains background work when it stops).
func gatewayTurn(t *testing.T, cfgPath string, msg channels.Inbound) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rt, err := runtime.Load(ctx, &runtime.Options{ConfigPath: cfgPath, Home: filepath.Dir(cfgPath), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ch := channeltest.NewFakeNamed("telegram")
	done := make(chan error, 1)
	go func() {
		defer rt.Close()
		done <- gateway.New(rt, &gateway.Options{Grace: 5 * time.Second, Channels: []channels.Channel{ch}}).Run(ctx)
	}()
	ch.Inject(msg)
	// The fake can stream, so the reply is a finished stream.
	ch.Await(t, "the reply", func(r channeltest.Record) bool {
		return len(r.Sent) >= 1 || len(r.Streams) >= 1 && r.Streams[0].Finished
	})
	rt.Agent.Wait()
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("gateway: %v", err)
	}
}

// systemPromptOf returns the system prompt of the last turn request whose
// user message is text.
func systemPromptOf(t *testing.T, srv *providertest.Server, text string) string {
	t.Helper()
	reqs := srv.Requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		m := reqs[i].Messages
		if len(m) > 1 && m[len(m)-1].Content == text && m[0].Role == "system" {
			return m[0].Content
		}
	}
	t.Fatalf("no request asked %q", text)
	return ""
}

// TestLearnedOnTelegramRecalledOnTheCLI: a preference the owner states on
// Telegram is learned through the gateway and is in the system prompt of
// `agent -m` on the CLI. A single-person install (one allowlisted id)
// keeps it in MEMORY.md; with a second person allowed and an owner block,
// it goes to the owner's own file, and the other person's prompt lacks it.
func TestLearnedOnTelegramRecalledOnTheCLI(t *testing.T) {
	for _, tt := range []struct {
		name     string
		allow    []string
		owner    config.Owner
		factFile string // relative to the home directory
	}{
		{"single person, inferred", []string{"12345"}, config.Owner{}, filepath.Join("workspace", memory.MemoryFileName)},
		{"owner block, a second person", []string{"12345", "777"}, config.Owner{Telegram: []string{"12345"}}, filepath.Join("memory", "owner_default.md")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			clearProviderEnv(t)
			srv := providertest.NewServer(t)
			srv.SetFallback(recallModel)
			cfgPath := scriptedConfig(t, srv)
			cfg, err := config.Load(cfgPath)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Agents.Defaults.Learning = "on"
			cfg.Channels.Telegram.AllowFrom = tt.allow
			cfg.Owner = tt.owner
			if err := config.Save(cfgPath, cfg); err != nil {
				t.Fatal(err)
			}
			home := filepath.Dir(cfgPath)

			gatewayTurn(t, cfgPath, channels.Inbound{Channel: "telegram", Conversation: "12345", Principal: "12345",
				Text: "I take oolong tea, no sugar", MessageID: "1", IsDirect: true})
			if b, _ := os.ReadFile(filepath.Join(home, tt.factFile)); !strings.Contains(string(b), "oolong") {
				t.Fatalf("%s after the Telegram turn = %q, want the learned fact", tt.factFile, b)
			}

			r := runCLI(t, "", "--config", cfgPath, "agent", "-m", "what tea do I take?")
			if r.code != 0 {
				t.Fatalf("agent -m: %+v", r)
			}
			if sys := systemPromptOf(t, srv, "what tea do I take?"); !strings.Contains(sys, "oolong") {
				t.Errorf("the CLI turn's system prompt lacks what the owner said on Telegram:\n%s", sys)
			}

			r = runCLI(t, "", "--config", cfgPath, "memory", "status")
			if !strings.Contains(r.stdout, "telegram:12345") || !strings.Contains(r.stdout, filepath.Base(tt.factFile)) {
				t.Errorf("memory status does not show the Telegram session's scope:\n%s", r.stdout)
			}

			if len(tt.allow) > 1 {
				gatewayTurn(t, cfgPath, channels.Inbound{Channel: "telegram", Conversation: "777", Principal: "777",
					Text: "which tea is best?", MessageID: "2", IsDirect: true})
				if sys := systemPromptOf(t, srv, "which tea is best?"); strings.Contains(sys, "oolong") {
					t.Errorf("another allowlisted person's prompt holds the owner's fact:\n%s", sys)
				}
			}
		})
	}
}

// TestSessionSearchFindsTheOwnersOtherChannels: session_search from the
// owner's CLI session finds what the owner said on Telegram, and not what
// a stranger said.
func TestSessionSearchFindsTheOwnersOtherChannels(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	cfgPath := scriptedConfig(t, srv)
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Channels.Telegram.AllowFrom = []string{"12345", "777"}
	cfg.Owner = config.Owner{Telegram: []string{"12345"}}
	if err := config.Save(cfgPath, cfg); err != nil {
		t.Fatal(err)
	}
	srv.SetFallback(func(r providertest.Request) providertest.Reply { return providertest.Text("ok") })
	gatewayTurn(t, cfgPath, channels.Inbound{Channel: "telegram", Conversation: "12345", Principal: "12345",
		Text: "the gate code is 4471", MessageID: "1", IsDirect: true})
	gatewayTurn(t, cfgPath, channels.Inbound{Channel: "telegram", Conversation: "777", Principal: "777",
		Text: "my gate code is 9999", MessageID: "2", IsDirect: true})

	calls := 0
	srv.SetFallback(func(r providertest.Request) providertest.Reply {
		calls++
		if calls == 1 {
			c := providertest.Call("session_search", `{"query":"gate code"}`)
			c.ID = "c1"
			return providertest.ToolCalls(c)
		}
		return providertest.Text("done")
	})
	r := runCLI(t, "", "--config", cfgPath, "agent", "-m", "what was the gate code?")
	if r.code != 0 {
		t.Fatalf("agent -m: %+v", r)
	}
	var result string
	for _, req := range srv.Requests() {
		for _, m := range req.Messages {
			if m.Role == "tool" && m.ToolCallID == "c1" {
				result = m.Content
			}
		}
	}
	if !strings.Contains(result, "4471") || !strings.Contains(result, "telegram:12345") {
		t.Errorf("session_search from the CLI misses the owner's Telegram session:\n%s", result)
	}
	if strings.Contains(result, "9999") {
		t.Errorf("session_search from the CLI found a stranger's session:\n%s", result)
	}
	if !strings.Contains(result, `trust="untrusted: `) {
		t.Errorf("session_search results are not fenced:\n%s", result)
	}
}
