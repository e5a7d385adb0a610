package gateway

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/channels/channeltest"
	"github.com/joshbot/joshbot/channels/telegram"
	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/providers/providertest"
)

// plain is a fake channel as the gateway sees a platform with no optional
// ability: it can only send. The gateway's plain path (a reply through
// the bus and Send) runs for it.
type plain struct{ channels.Channel }

// newPlain returns a channeltest fake named "telegram" and the plain view
// of it to give the gateway.
func newPlain() (*channeltest.Fake, channels.Channel) {
	f := channeltest.NewFakeNamed("telegram")
	return f, plain{f}
}

// awaitSent waits until f was sent n messages and returns each as
// "conversation: text".
func awaitSent(t *testing.T, f *channeltest.Fake, n int) []string {
	t.Helper()
	rec := f.Await(t, fmt.Sprintf("%d sent messages", n), func(r channeltest.Record) bool { return len(r.Sent) >= n })
	return sentLines(rec)
}

// sentLines is every message in rec as "conversation: text".
func sentLines(rec channeltest.Record) []string {
	var out []string
	for _, s := range rec.Sent {
		out = append(out, s.Conversation+": "+s.Message.Text)
	}
	return out
}

// awaitDelivered waits until the router accepted n injected messages
// (redeliveries included: the router acknowledges a duplicate and drops
// it).
func awaitDelivered(t *testing.T, f *channeltest.Fake, n int) {
	t.Helper()
	f.Await(t, fmt.Sprintf("%d delivered messages", n), func(r channeltest.Record) bool { return len(r.Delivered) >= n })
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

func startGateway(t *testing.T, cfgPath string, ch channels.Channel) (stop func() string) {
	t.Helper()
	var logs bytes.Buffer
	return runGateway(t, cfgPath, &logs, ch)
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
	ch, view := newPlain()
	stop := startGateway(t, cfgPath, view)

	msg := channels.Inbound{Channel: "telegram", Conversation: "42", Principal: "42", Text: "hi", MessageID: "1001", IsDirect: true}
	stranger := channels.Inbound{Channel: "telegram", Conversation: "9", Principal: "9", Text: "let me in", MessageID: "1002", IsDirect: true}
	ch.Inject(stranger)
	ch.Inject(msg)
	if got := awaitSent(t, ch, 1); got[0] != "42: Hello, 42." {
		t.Fatalf("reply = %q", got)
	}
	ch.Inject(msg) // a redelivery
	awaitDelivered(t, ch, 3)
	time.Sleep(100 * time.Millisecond)
	logs := stop()
	if !strings.Contains(logs, "allow_from") {
		t.Errorf("the refused sender was not logged with the config key:\n%s", logs)
	}

	ch2, view2 := newPlain()
	stop = startGateway(t, cfgPath, view2)
	ch2.Inject(msg) // redelivered after a restart
	awaitDelivered(t, ch2, 1)
	time.Sleep(200 * time.Millisecond)
	stop()
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("provider asked %d times, want exactly once", n)
	}
	if a, b := sentLines(ch.Record()), sentLines(ch2.Record()); len(a)+len(b) != 1 {
		t.Fatalf("sent %q and %q, want one reply in all", a, b)
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
	ch, view := newPlain()
	stop := startGateway(t, gatewayConfig(t, srv), view)
	ch.Inject(channels.Inbound{Channel: "telegram", Conversation: "1", Principal: "1", Text: "x", MessageID: "1", IsDirect: true})
	awaitDelivered(t, ch, 1)
	time.Sleep(100 * time.Millisecond)
	logs := stop()
	if !strings.Contains(logs, "channels.telegram.allow_from is empty") {
		t.Fatalf("no start-up warning:\n%s", logs)
	}
	if len(srv.Requests()) != 0 {
		t.Fatal("the agent ran for a refused sender")
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
	ch, view := newPlain()
	stop := startGateway(t, cfgPath, view) // grace: one second

	// A message worth learning from; the agent gathers exchanges, so the
	// learning request goes out when the gateway stops.
	ch.Inject(channels.Inbound{Channel: "telegram", Conversation: "42", Principal: "42", Text: "hi, I'm Ann", MessageID: "7", IsDirect: true})
	awaitSent(t, ch, 1)
	start := time.Now()
	logs := stop()
	select {
	case <-learning:
	default:
		t.Fatal("no learning request when the gateway stopped")
	}
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

// failing is a channel whose Start fails at once with err.
type failing struct {
	channels.Channel
	err error
}

func (f failing) Start(context.Context, channels.Sink) error { return f.err }

// TestChannelStartErrorNamesTheKey: an adapter that stops because its
// token was refused names its Options field; the operator's log names the
// config key instead.
func TestChannelStartErrorNamesTheKey(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	cfgPath := scriptedConfig(t, srv)
	ch := failing{channeltest.NewFakeNamed("telegram"), fmt.Errorf("telegram: %w", telegram.ErrUnauthorized)}
	stop := startGateway(t, cfgPath, ch)
	time.Sleep(200 * time.Millisecond)
	logs := stop()
	if !strings.Contains(logs, "channels.telegram.token_env") || strings.Contains(logs, "Options.Token") {
		t.Fatalf("the refused token is not reported with its config key:\n%s", logs)
	}
}
