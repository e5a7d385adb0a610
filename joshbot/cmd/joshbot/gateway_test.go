package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/channels/telegram"
	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/providers/providertest"
)

// fakeChannel is a platform in memory: tests push inbound messages and
// read what the gateway sent.
type fakeChannel struct {
	in   chan channels.Inbound
	mu   sync.Mutex
	sent []string
	got  chan string
	// startErr, when set, is what Start returns at once.
	startErr error
}

func newFakeChannel() *fakeChannel {
	return &fakeChannel{in: make(chan channels.Inbound, 10), got: make(chan string, 10)}
}

func (f *fakeChannel) Name() string { return "telegram" }

func (f *fakeChannel) Start(ctx context.Context, sink channels.Sink) error {
	if f.startErr != nil {
		return f.startErr
	}
	for {
		select {
		case inb := <-f.in:
			for sink.Deliver(ctx, inb) != nil {
				time.Sleep(time.Millisecond)
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (f *fakeChannel) Send(_ context.Context, conversation string, msg channels.Outbound) error {
	f.mu.Lock()
	f.sent = append(f.sent, conversation+": "+msg.Text)
	f.mu.Unlock()
	f.got <- msg.Text
	return nil
}

func gatewayConfig(t *testing.T, srv *providertest.Server, allow ...string) string {
	t.Helper()
	p := scriptedConfig(t, srv)
	cfg, err := config.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Channels.Telegram.AllowFrom = allow
	if err := config.Save(p, cfg); err != nil {
		t.Fatal(err)
	}
	return p
}

func startGateway(t *testing.T, cfgPath string, ch *fakeChannel) (stop func() string) {
	t.Helper()
	var logs bytes.Buffer
	a := &app{configPath: cfgPath, stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, extraChannels: []channels.Channel{ch}}
	a.log = slog.New(slog.NewTextHandler(&syncWriter{w: &logs}, nil))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.gateway(ctx, time.Second) }()
	return func() string {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("gateway: %v", err)
		}
		return logs.String()
	}
}

type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func TestGatewayAnswersAllowedSenderOnceAcrossRestart(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	srv.Enqueue(providertest.Text("Hello, 42."))
	cfgPath := gatewayConfig(t, srv, "42")
	ch := newFakeChannel()
	stop := startGateway(t, cfgPath, ch)

	msg := channels.Inbound{Channel: "telegram", Conversation: "42", Principal: "42", Text: "hi", MessageID: "1001", IsDirect: true}
	stranger := channels.Inbound{Channel: "telegram", Conversation: "9", Principal: "9", Text: "let me in", MessageID: "1002", IsDirect: true}
	ch.in <- stranger
	ch.in <- msg
	select {
	case got := <-ch.got:
		if got != "Hello, 42." {
			t.Fatalf("reply = %q", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no reply")
	}
	ch.in <- msg // a redelivery
	time.Sleep(100 * time.Millisecond)
	logs := stop()
	if !strings.Contains(logs, "allow_from") {
		t.Errorf("the refused sender was not logged with the config key:\n%s", logs)
	}

	ch2 := newFakeChannel()
	stop = startGateway(t, cfgPath, ch2)
	ch2.in <- msg // redelivered after a restart
	time.Sleep(200 * time.Millisecond)
	stop()
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("provider asked %d times, want exactly once", n)
	}
	if len(ch.sent)+len(ch2.sent) != 1 {
		t.Fatalf("sent %q and %q, want one reply in all", ch.sent, ch2.sent)
	}
	for _, r := range srv.Requests() {
		for _, m := range r.Messages {
			if strings.Contains(m.Content, "let me in") {
				t.Fatal("a message from outside the allowlist reached the model")
			}
		}
	}
}

func TestGatewayWarnsAboutEmptyAllowlist(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	ch := newFakeChannel()
	stop := startGateway(t, gatewayConfig(t, srv), ch)
	ch.in <- channels.Inbound{Channel: "telegram", Conversation: "1", Principal: "1", Text: "x", MessageID: "1", IsDirect: true}
	time.Sleep(100 * time.Millisecond)
	logs := stop()
	if !strings.Contains(logs, "channels.telegram.allow_from is empty") {
		t.Fatalf("no start-up warning:\n%s", logs)
	}
	if len(srv.Requests()) != 0 {
		t.Fatal("the agent ran for a refused sender")
	}
}

func TestGatewayEnabledTelegramNeedsAToken(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	p := scriptedConfig(t, srv)
	t.Setenv("JOSHBOT_CHANNELS__TELEGRAM__ENABLED", "true")
	r := runCLI(t, "", "--config", p, "gateway")
	if r.code != 1 || !strings.Contains(r.stderr, "channels.telegram.token_env") {
		t.Fatalf("%+v", r)
	}
}

// A stop signal does not wait out a slow model: the learning step that
// follows a reply gets what is left of the grace period, then is abandoned.
func TestGatewayStopAbandonsASlowLearningStep(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) }) // before the server closes
	learning := make(chan struct{}, 1)
	srv.Enqueue(providertest.Text("Hello, 42."))
	srv.SetFallback(func(providertest.Request) providertest.Reply {
		select {
		case learning <- struct{}{}:
		default:
		}
		<-release
		return providertest.Text(`{"facts": []}`)
	})
	cfgPath := gatewayConfig(t, srv, "42")
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Agents.Defaults.Learning = "on"
	if err := config.Save(cfgPath, cfg); err != nil {
		t.Fatal(err)
	}
	ch := newFakeChannel()
	stop := startGateway(t, cfgPath, ch) // grace: one second

	ch.in <- channels.Inbound{Channel: "telegram", Conversation: "42", Principal: "42", Text: "hi", MessageID: "7", IsDirect: true}
	select {
	case <-ch.got:
	case <-time.After(10 * time.Second):
		t.Fatal("no reply")
	}
	select {
	case <-learning:
	case <-time.After(10 * time.Second):
		t.Fatal("no learning request after the reply")
	}
	start := time.Now()
	logs := stop()
	// The learning step's own deadline is 30 s; the grace period is 1 s.
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the gateway took %v to stop while the model stalled", d)
	}
	for _, want := range []string{"learning step abandoned", "stopped without waiting for the model"} {
		if !strings.Contains(logs, want) {
			t.Errorf("no %q in the log:\n%s", want, logs)
		}
	}
}

// TestChannelStartErrorNamesTheKey: an adapter that stops because its
// token was refused names its Options field; the operator's log names the
// config key instead.
func TestChannelStartErrorNamesTheKey(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	cfgPath := scriptedConfig(t, srv)
	ch := newFakeChannel()
	ch.startErr = fmt.Errorf("telegram: %w", telegram.ErrUnauthorized)
	stop := startGateway(t, cfgPath, ch)
	time.Sleep(200 * time.Millisecond)
	logs := stop()
	if !strings.Contains(logs, "channels.telegram.token_env") || strings.Contains(logs, "Options.Token") {
		t.Fatalf("the refused token is not reported with its config key:\n%s", logs)
	}
}
