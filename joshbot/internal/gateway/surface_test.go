package gateway

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/channels/channeltest"
	"github.com/joshbot/joshbot/channels/webhook"
	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
	"github.com/joshbot/joshbot/providers/providertest"
)

// TestGatewayTwoChannelsEachSeeOnlyTheirReplies runs a Telegram and a
// Discord channel at once: every reply goes to the channel its question
// came from, and the allowlist of one does not admit on the other.
func TestGatewayTwoChannelsEachSeeOnlyTheirReplies(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	srv.SetFallback(func(r providertest.Request) providertest.Reply {
		return providertest.Text("echo: " + r.Messages[len(r.Messages)-1].Content)
	})
	p := scriptedConfig(t, srv)
	cfg, err := config.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Channels.Telegram.AllowFrom = []string{"42"}
	cfg.Channels.Discord.AllowFrom = []string{"100000000000000042"}
	if err := config.Save(p, cfg); err != nil {
		t.Fatal(err)
	}
	tg, dc := channeltest.NewFakeNamed("telegram"), channeltest.NewFakeNamed("discord")
	var logs bytes.Buffer
	stop := runGateway(t, p, &logs, plain{tg}, plain{dc})

	for i := 0; i < 3; i++ {
		tg.Inject(channels.Inbound{Channel: "telegram", Conversation: "42", Principal: "42", Text: fmt.Sprintf("tg %d", i), MessageID: fmt.Sprint(i), IsDirect: true})
		dc.Inject(channels.Inbound{Channel: "discord", Conversation: "dm-9", Principal: "100000000000000042", Text: fmt.Sprintf("dc %d", i), MessageID: fmt.Sprint(i), IsDirect: true})
	}
	// The Telegram user's id on Discord is a stranger there.
	dc.Inject(channels.Inbound{Channel: "discord", Conversation: "dm-7", Principal: "42", Text: "cross-channel", MessageID: "x", IsDirect: true})
	awaitSent(t, tg, 3)
	awaitSent(t, dc, 3)
	awaitDelivered(t, dc, 4)
	time.Sleep(200 * time.Millisecond)
	stop()
	check := func(f *channeltest.Fake, prefix string, conv string) {
		sent := sentLines(f.Record())
		if len(sent) != 3 {
			t.Fatalf("%s got %d replies %q, want its own 3", f.Name(), len(sent), sent)
		}
		for _, s := range sent {
			if !strings.HasPrefix(s, conv+": echo: "+prefix) {
				t.Fatalf("%s got %q: a reply of another channel", f.Name(), s)
			}
		}
	}
	check(tg, "tg", "42")
	check(dc, "dc", "dm-9")
	for _, r := range srv.Requests() {
		for _, m := range r.Messages {
			if strings.Contains(m.Content, "cross-channel") {
				t.Fatal("a sender allowed on Telegram reached the agent through Discord")
			}
		}
	}
}

// TestGatewayWebhookForgedNeverRunsSignedRunsWithItsProfile drives the
// webhook receiver the gateway listens with: a forged delivery is refused
// with 401 and the model is never called; a signed one runs once under the
// route's agent profile, and its redelivery does not run again.
func TestGatewayWebhookForgedNeverRunsSignedRunsWithItsProfile(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	srv.SetFallback(func(r providertest.Request) providertest.Reply { return providertest.Text("reviewed") })
	p := scriptedConfig(t, srv)
	cfg, err := config.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	t.Setenv("JOSHBOT_TEST_HOOK_SECRET", "It's a Secret to Everybody")
	cfg.Agents.Profiles = map[string]config.AgentProfile{"reviewer": {Description: "reviews", Model: "reviewer-model"}}
	cfg.Webhooks = config.Webhooks{Listen: addr, Routes: []config.WebhookRoute{{Name: "github", Path: "/hooks/github", SecretEnv: "JOSHBOT_TEST_HOOK_SECRET", Agent: "reviewer"}}}
	if err := config.Save(p, cfg); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	stop := runGateway(t, p, &logs)
	defer func() {
		if t.Failed() {
			t.Logf("gateway log:\n%s", stop())
		}
	}()

	body := []byte(`{"action":"opened","repository":{"full_name":"octo/repo"},"sender":{"login":"octocat"}}`)
	post := func(sig, delivery string) int {
		req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/hooks/github", bytes.NewReader(body))
		req.Header.Set("X-GitHub-Event", "pull_request")
		req.Header.Set("X-GitHub-Delivery", delivery)
		if sig != "" {
			req.Header.Set("X-Hub-Signature-256", sig)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	deadline := time.Now().Add(10 * time.Second)
	for post("", "probe") != http.StatusUnauthorized {
		if time.Now().After(deadline) {
			t.Fatal("the webhook receiver never answered")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if code := post(webhook.Sign("wrong secret", body), "forged-1"); code != http.StatusUnauthorized {
		t.Fatalf("forged delivery: %d, want 401", code)
	}
	time.Sleep(200 * time.Millisecond)
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("the model was called %d times for forged deliveries", n)
	}
	sig := webhook.Sign("It's a Secret to Everybody", body)
	if code := post(sig, "d-1"); code != http.StatusAccepted {
		t.Fatalf("signed delivery: %d, want 202", code)
	}
	for time.Now().Before(deadline.Add(10*time.Second)) && len(srv.Requests()) == 0 {
		time.Sleep(20 * time.Millisecond)
	}
	if code := post(sig, "d-1"); code != http.StatusAccepted {
		t.Fatalf("redelivery: %d, want 202", code)
	}
	time.Sleep(300 * time.Millisecond)
	logText := stop()
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("the model was called %d times, want once", len(reqs))
	}
	if reqs[0].Model != "reviewer-model" {
		t.Fatalf("the delivery ran on model %q, want the reviewer profile's", reqs[0].Model)
	}
	if last := reqs[0].Messages[len(reqs[0].Messages)-1].Content; !strings.Contains(last, "pull_request (opened) on octo/repo") {
		t.Fatalf("task = %q", last)
	}
	if !strings.Contains(logText, "reviewed") {
		t.Fatalf("the reply was not logged:\n%s", logText)
	}

	// A captured delivery replayed under a fresh id after a restart: the
	// signature does not cover the id, so the gateway must know the body.
	var logs2 bytes.Buffer
	stop2 := runGateway(t, p, &logs2)
	defer stop2()
	deadline = time.Now().Add(10 * time.Second)
	for post("", "probe-2") != http.StatusUnauthorized {
		if time.Now().After(deadline) {
			t.Fatal("the restarted webhook receiver never answered")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if code := post(sig, "replayed-under-a-new-id"); code != http.StatusAccepted {
		t.Fatalf("replay: %d, want 202", code)
	}
	time.Sleep(300 * time.Millisecond)
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("a replayed delivery ran again after a restart: the model was called %d times\n%s", n, stop2())
	}
}

func (s *syncWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.String()
}

// runGateway loads the runtime of the config at cfgPath the way the
// gateway command does, logging to logs, and runs a gateway over it with
// the extra channels and a grace of one second until the returned stop,
// which returns the logs; stop may be called more than once.
func runGateway(t *testing.T, cfgPath string, logs *bytes.Buffer, extra ...channels.Channel) (stop func() string) {
	t.Helper()
	w := &syncWriter{w: logs}
	ctx, cancel := context.WithCancel(context.Background())
	rt, err := runtime.Load(ctx, &runtime.Options{
		ConfigPath: cfgPath, Home: filepath.Dir(cfgPath), WrapTools: runtime.ProgressTools,
		Logger: slog.New(slog.NewTextHandler(w, nil)),
	})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		defer rt.Close()
		done <- New(rt, &Options{Grace: time.Second, Channels: extra}).Run(ctx)
	}()
	var once sync.Once
	stop = func() string {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("gateway: %v", err)
			}
		})
		return w.String()
	}
	t.Cleanup(func() { stop() })
	return stop
}
