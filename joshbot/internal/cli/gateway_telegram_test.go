package cli

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/joshbot/joshbot/channels/telegram/telegramtest"
	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/providers/providertest"
)

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestGatewayTelegramEndToEnd runs the real binary's gateway against the
// Telegram emulator: an allowed user is answered exactly once, a stranger
// never reaches the model, and a gateway killed with SIGKILL and started
// again answers nothing twice.
func TestGatewayTelegramEndToEnd(t *testing.T) {
	bin := binary(t)
	emu := telegramtest.Start(t)
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	srv.SetFallback(func(r providertest.Request) providertest.Reply {
		last := r.Messages[len(r.Messages)-1]
		return providertest.Text("echo: " + last.Content)
	})
	cfgPath := scriptedConfig(t, srv)
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Channels.Telegram = config.Telegram{Enabled: true, TokenEnv: "JOSHBOT_TEST_TG_TOKEN", APIURL: emu.APIURL, AllowFrom: []string{"1"}}
	if err := config.Save(cfgPath, cfg); err != nil {
		t.Fatal(err)
	}
	t.Setenv("JOSHBOT_TEST_TG_TOKEN", telegramtest.Token)

	start := func() *exec.Cmd {
		cmd := exec.Command(bin, "--config", cfgPath, "--log-level", "info", "gateway")
		var logs bytes.Buffer
		cmd.Stdout, cmd.Stderr = &logs, &logs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			cmd.Process.Kill()
			cmd.Wait()
			if t.Failed() {
				t.Logf("gateway log:\n%s", logs.String())
			}
		})
		return cmd
	}
	gw := start()
	emu.UserSends(t, 2, "a stranger says hi", nil)
	emu.UserSends(t, 1, "ping", nil)
	waitUntil(t, "the reply to ping", func() bool { return len(emu.BotTexts(t, 1)) >= 1 })
	time.Sleep(1500 * time.Millisecond) // more polls: nothing may run twice

	gw.Process.Signal(syscall.SIGKILL)
	gw.Wait()
	start()
	emu.UserSends(t, 1, "second", nil)
	waitUntil(t, "the reply to second", func() bool { return len(emu.BotTexts(t, 1)) >= 2 })
	time.Sleep(1500 * time.Millisecond)

	if got := emu.BotTexts(t, 1); len(got) != 2 || got[0] != "echo: ping" || got[1] != "echo: second" {
		t.Fatalf("chat 1 got %q, want each message answered once", got)
	}
	if got := emu.BotTexts(t, 2); len(got) != 0 {
		t.Fatalf("the stranger got %q", got)
	}
	for _, r := range srv.Requests() {
		for _, m := range r.Messages {
			if m.Role == providers.RoleUser && strings.Contains(m.Content, "stranger") {
				t.Fatal("a stranger's message reached the model")
			}
		}
	}
}

// TestGatewaySoak pushes 1,000 messages from 20 senders through the real
// gateway and the Telegram emulator, restarting the gateway (SIGTERM, as
// systemd does) halfway: every message is answered exactly once, in order
// per sender, and none is lost across the restart.
func TestGatewaySoak(t *testing.T) {
	if testing.Short() {
		t.Skip("the soak test takes tens of seconds; skipped in -short mode")
	}
	bin := binary(t)
	emu := telegramtest.Start(t)
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	srv.RecordRequests(false)
	srv.SetFallback(func(r providertest.Request) providertest.Reply {
		return providertest.Text("echo: " + r.Messages[len(r.Messages)-1].Content)
	})
	const senders, each = 20, 50
	var allow []string
	for s := 1; s <= senders; s++ {
		allow = append(allow, fmt.Sprint(s))
	}
	cfgPath := scriptedConfig(t, srv)
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Agents.Defaults.Streaming = false
	cfg.Channels.Telegram = config.Telegram{Enabled: true, TokenEnv: "JOSHBOT_TEST_TG_TOKEN", APIURL: emu.APIURL, AllowFrom: allow}
	if err := config.Save(cfgPath, cfg); err != nil {
		t.Fatal(err)
	}
	t.Setenv("JOSHBOT_TEST_TG_TOKEN", telegramtest.Token)
	start := func() *exec.Cmd {
		cmd := exec.Command(bin, "--config", cfgPath, "gateway")
		var logs bytes.Buffer
		cmd.Stdout, cmd.Stderr = &logs, &logs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			cmd.Process.Kill()
			cmd.Wait()
			if t.Failed() {
				t.Logf("gateway log:\n%s", logs.String())
			}
		})
		return cmd
	}
	answered := func() int {
		n := 0
		for s := 1; s <= senders; s++ {
			n += len(emu.BotTexts(t, int64(s)))
		}
		return n
	}
	send := func(from, to int) {
		for i := from; i < to; i++ {
			for s := 1; s <= senders; s++ {
				emu.UserSends(t, int64(s), fmt.Sprintf("s%d-%d", s, i), nil)
			}
		}
	}

	gw := start()
	send(0, each/2)
	waitUntil(t, "a first share of answers", func() bool { return answered() >= senders*each/4 })
	gw.Process.Signal(syscall.SIGTERM)
	if err := gw.Wait(); err != nil {
		t.Fatalf("gateway did not stop cleanly on SIGTERM: %v", err)
	}
	start()
	send(each/2, each)
	deadline := time.Now().Add(3 * time.Minute)
	for answered() < senders*each {
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d messages answered", answered(), senders*each)
		}
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(time.Second) // a few more polls: nothing may be answered twice
	for s := 1; s <= senders; s++ {
		got := emu.BotTexts(t, int64(s))
		if len(got) != each {
			t.Fatalf("sender %d got %d answers, want %d", s, len(got), each)
		}
		for i, text := range got {
			if want := fmt.Sprintf("echo: s%d-%d", s, i); text != want {
				t.Fatalf("sender %d answer %d is %q, want %q (order or duplicate)", s, i, text, want)
			}
		}
	}
}
