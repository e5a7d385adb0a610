package webhook_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/channels/webhook"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		goleak.IgnoreTopFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
		goleak.IgnoreTopFunction("internal/poll.runtime_pollWait"),
	)
}

// TestSignMatchesGitHubsVector checks the example from GitHub's
// "Validating webhook deliveries" documentation.
func TestSignMatchesGitHubsVector(t *testing.T) {
	got := webhook.Sign("It's a Secret to Everybody", []byte("Hello, World!"))
	want := "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
	if got != want {
		t.Fatalf("Sign = %s, want %s", got, want)
	}
}

const secret = "It's a Secret to Everybody"

// env is a receiver in front of a real Router whose handler stands in for
// the agent.
type env struct {
	srv *httptest.Server
	mu  sync.Mutex
	ran []channels.Inbound
}

func (e *env) agentRuns() []channels.Inbound {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]channels.Inbound(nil), e.ran...)
}

func newEnv(t *testing.T, routes ...webhook.Route) *env {
	t.Helper()
	if len(routes) == 0 {
		routes = []webhook.Route{{Name: "github", Path: "/hooks/github", Secret: secret, Agent: "reviewer"}}
	}
	rx, err := webhook.New(&webhook.Options{Routes: routes, MaxBody: 4096, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	// An allowlist that admits nobody: Trusted deliveries must not need it.
	r, err := channels.NewRouter(&channels.RouterOptions{Dir: t.TempDir(), Channels: []string{webhook.Name}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{srv: httptest.NewServer(rx)}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		r.Run(ctx, func(_ context.Context, inb channels.Inbound) {
			e.mu.Lock()
			e.ran = append(e.ran, inb)
			e.mu.Unlock()
		}, nil)
	}()
	go func() { defer wg.Done(); rx.Start(ctx, r) }()
	t.Cleanup(func() { e.srv.Close(); cancel(); wg.Wait(); r.Close() })
	// Start has stored the sink once a delivery stops answering 503.
	deadline := time.Now().Add(5 * time.Second)
	for e.post(t, "/hooks/github", "probe", "ping", []byte(`{}`), webhook.Sign(secret, []byte(`{}`))) == http.StatusServiceUnavailable {
		if time.Now().After(deadline) {
			t.Fatal("receiver never started")
		}
		time.Sleep(5 * time.Millisecond)
	}
	return e
}

func (e *env) post(t *testing.T, path, delivery, event string, body []byte, sig string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL+path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if delivery != "" {
		req.Header.Set("X-GitHub-Delivery", delivery)
	}
	req.Header.Set("X-GitHub-Event", event)
	if sig != "" {
		req.Header.Set("X-Hub-Signature-256", sig)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

var payload = []byte(`{"action":"opened","repository":{"full_name":"octo/repo"},"sender":{"login":"octocat"},"issue":{"title":"Bug"}}`)

func TestForgedDeliveriesNeverReachTheAgent(t *testing.T) {
	e := newEnv(t)
	other := []byte(`{"action":"deleted"}`)
	for _, tt := range []struct {
		name string
		sig  string
		body []byte
	}{
		{"unsigned", "", payload},
		{"wrong secret", webhook.Sign("guess", payload), payload},
		{"signature of another body", webhook.Sign(secret, other), payload},
		{"sha1 header form", "sha1=" + strings.Repeat("0", 40), payload},
		{"not hex", "sha256=zz", payload},
		{"truncated", webhook.Sign(secret, payload)[:40], payload},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if code := e.post(t, "/hooks/github", "d-"+tt.name, "issues", tt.body, tt.sig); code != http.StatusUnauthorized {
				t.Fatalf("status %d, want 401", code)
			}
		})
	}
	time.Sleep(50 * time.Millisecond)
	if got := e.agentRuns(); len(got) != 0 {
		t.Fatalf("the agent ran for a forged delivery: %+v", got)
	}
}

func TestSignedDeliveryRunsOnceTrustedWithItsAgent(t *testing.T) {
	e := newEnv(t)
	sig := webhook.Sign(secret, payload)
	for i := 0; i < 3; i++ { // GitHub's redelivery reuses the delivery id
		if code := e.post(t, "/hooks/github", "72d3162e-cc78-11e3-81ab-4c9367dc0958", "issues", payload, sig); code != http.StatusAccepted {
			t.Fatalf("delivery %d: status %d, want 202", i, code)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(e.agentRuns()) == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	runs := e.agentRuns()
	if len(runs) != 1 {
		t.Fatalf("the agent ran %d times, want once", len(runs))
	}
	got := runs[0]
	if !got.Trusted || got.Agent != "reviewer" || got.Channel != webhook.Name || got.Conversation != "github" || got.Principal != "github:octocat" {
		t.Fatalf("inbound %+v", got)
	}
	if !strings.Contains(got.Text, "issues (opened) on octo/repo") || !strings.Contains(got.Text, `"title":"Bug"`) {
		t.Fatalf("task text:\n%s", got.Text)
	}
}

func TestOtherRefusals(t *testing.T) {
	e := newEnv(t, webhook.Route{Name: "github", Path: "/hooks/github", Secret: secret, Events: []string{"push"}})
	big := bytes.Repeat([]byte("x"), 5000)
	for _, tt := range []struct {
		name, path, delivery, event string
		body                        []byte
		want                        int
	}{
		{"unknown path", "/hooks/other", "d1", "push", payload, http.StatusNotFound},
		{"over the cap", "/hooks/github", "d2", "push", big, http.StatusRequestEntityTooLarge},
		{"no delivery id", "/hooks/github", "", "push", payload, http.StatusBadRequest},
		{"event not routed", "/hooks/github", "d3", "issues", payload, http.StatusNoContent},
		{"ping", "/hooks/github", "d4", "ping", payload, http.StatusNoContent},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if code := e.post(t, tt.path, tt.delivery, tt.event, tt.body, webhook.Sign(secret, tt.body)); code != tt.want {
				t.Fatalf("status %d, want %d", code, tt.want)
			}
		})
	}
	resp, err := http.Get(e.srv.URL + "/hooks/github")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("GET = %d, want 405", resp.StatusCode)
	}
	time.Sleep(50 * time.Millisecond)
	if got := e.agentRuns(); len(got) != 0 {
		t.Fatalf("the agent ran: %+v", got)
	}
}

func TestNewRefusesUnsafeConfig(t *testing.T) {
	for _, tt := range []struct {
		name   string
		routes []webhook.Route
		want   string
	}{
		{"no routes", nil, "Options.Routes is empty"},
		{"no secret", []webhook.Route{{Name: "gh", Path: "/h"}}, "Options.Routes[0] (gh) has no Secret"},
		{"relative path", []webhook.Route{{Name: "gh", Path: "h", Secret: "s"}}, "Options.Routes[0].Path"},
		{"duplicate path", []webhook.Route{{Name: "a", Path: "/h", Secret: "s"}, {Name: "b", Path: "/h", Secret: "t"}}, "Options.Routes[1].Path"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := webhook.New(&webhook.Options{Routes: tt.routes})
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "webhooks.") {
				t.Fatalf("New = %v, want an error containing %q and no config key", err, tt.want)
			}
		})
	}
}

func TestStartListensAndStops(t *testing.T) {
	rx, err := webhook.New(&webhook.Options{Addr: "127.0.0.1:0", Routes: []webhook.Route{{Name: "gh", Path: "/h", Secret: secret}}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	got := make(chan channels.Inbound, 1)
	go func() { done <- rx.Start(ctx, sinkFunc(func(inb channels.Inbound) error { got <- inb; return nil })) }()
	addr, err := rx.Addr(ctx)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, fmt.Sprintf("http://%s/h", addr), bytes.NewReader(payload))
	req.Header.Set("X-GitHub-Delivery", "abc")
	req.Header.Set("X-GitHub-Event", "issues")
	req.Header.Set("X-Hub-Signature-256", webhook.Sign(secret, payload))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted || (<-got).MessageID != "abc" {
		t.Fatalf("status %d", resp.StatusCode)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Start = %v", err)
	}
}

type sinkFunc func(channels.Inbound) error

func (f sinkFunc) Deliver(_ context.Context, inb channels.Inbound) error { return f(inb) }

func TestUnrecordedDeliveryIs503(t *testing.T) {
	rx, err := webhook.New(&webhook.Options{Routes: []webhook.Route{{Name: "gh", Path: "/h", Secret: secret}}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	started := make(chan struct{})
	go func() {
		close(started)
		done <- rx.Start(ctx, sinkFunc(func(channels.Inbound) error { return errors.New("disk full") }))
	}()
	<-started
	defer func() { cancel(); <-done }()
	code := 0
	for i := 0; i < 500; i++ {
		w := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, "/h", bytes.NewReader(payload))
		req.Header.Set("X-GitHub-Delivery", "abc")
		req.Header.Set("X-GitHub-Event", "issues")
		req.Header.Set("X-Hub-Signature-256", webhook.Sign(secret, payload))
		rx.ServeHTTP(w, req)
		if code = w.Code; code != http.StatusServiceUnavailable || i > 50 {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	if code != http.StatusServiceUnavailable {
		t.Fatalf("status %d, want 503 when the sink cannot record", code)
	}
}

// TestStartReportsListenFailure: an address that cannot be bound is
// returned as ErrListen, naming Options.Addr.
func TestStartReportsListenFailure(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	rx, err := webhook.New(&webhook.Options{Addr: l.Addr().String(), Routes: []webhook.Route{{Name: "gh", Path: "/h", Secret: secret}}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	err = rx.Start(context.Background(), nil)
	if !errors.Is(err, webhook.ErrListen) || !strings.Contains(err.Error(), "Options.Addr") || strings.Contains(err.Error(), "webhooks.") {
		t.Fatalf("Start = %v, want ErrListen naming Options.Addr", err)
	}
}
