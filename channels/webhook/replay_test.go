package webhook_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/channels/webhook"
)

// countSink counts what reaches the router; it stands in for the gateway's
// durable inbox.
type countSink struct {
	mu  sync.Mutex
	got []channels.Inbound
}

func (s *countSink) Deliver(_ context.Context, inb channels.Inbound) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !strings.HasPrefix(inb.MessageID, "probe-") {
		s.got = append(s.got, inb)
	}
	return nil
}

// waitStarted delivers probes until Start has stored the sink (a delivery
// stops answering 503). The sinks here do not count probes.
func waitStarted(t *testing.T, h http.Handler) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for i := 0; ; i++ {
		id := fmt.Sprintf("probe-%d-%d", time.Now().UnixNano(), i)
		if deliver(h, id, "push", []byte(`{"probe":"`+id+`"}`)) != http.StatusServiceUnavailable {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("receiver never started")
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func (s *countSink) n() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.got)
}

// clock is an injected clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// receiver starts a Receiver on dir with sink and returns its handler and a
// stop function.
func receiver(t *testing.T, dir string, clk *clock, sink channels.Sink) (http.Handler, func()) {
	t.Helper()
	rx, err := webhook.New(&webhook.Options{
		Routes:       []webhook.Route{{Name: "github", Path: "/hooks/github", Secret: secret}},
		Logger:       slog.New(slog.DiscardHandler),
		StateDir:     dir,
		ReplayWindow: time.Hour,
		Now:          clk.now,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { rx.Start(ctx, sink); close(done) }()
	waitStarted(t, rx)
	return rx, func() { cancel(); <-done }
}

func deliver(h http.Handler, id, event string, body []byte) int {
	req := httptest.NewRequest(http.MethodPost, "/hooks/github", bytes.NewReader(body))
	req.Header.Set("X-GitHub-Delivery", id)
	req.Header.Set("X-GitHub-Event", event)
	req.Header.Set("X-Hub-Signature-256", webhook.Sign(secret, body))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code
}

// TestReplayUnderFreshDeliveryID: a captured signed delivery sent again
// under a new X-GitHub-Delivery is acknowledged and not run again (issue
// 18: it ran again, since the signature does not cover the id); the
// window survives a restart and expires.
func TestReplayUnderFreshDeliveryID(t *testing.T) {
	dir := t.TempDir()
	clk := &clock{t: time.Unix(1_700_000_000, 0)}
	sink := &countSink{}
	h, stop := receiver(t, dir, clk, sink)

	if code := deliver(h, "id-1", "issues", payload); code != http.StatusAccepted {
		t.Fatalf("first delivery: %d", code)
	}
	for _, id := range []string{"id-2", "id-3", "id-1"} {
		if code := deliver(h, id, "issues", payload); code != http.StatusAccepted {
			t.Fatalf("replay as %s: %d, want 202 (acknowledged)", id, code)
		}
	}
	other := []byte(`{"action":"closed","sender":{"login":"octocat"}}`)
	if code := deliver(h, "id-4", "issues", other); code != http.StatusAccepted {
		t.Fatalf("a different body: %d", code)
	}
	if n := sink.n(); n != 2 {
		t.Fatalf("%d deliveries reached the router, want 2 (the first and the different body)", n)
	}
	stop()

	// A new receiver on the same state directory remembers.
	data, err := os.ReadFile(filepath.Join(dir, webhook.ReplayFile))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "id-1") || strings.Contains(string(data), "octocat") {
		t.Fatalf("the window stores delivery ids or payload text, not digests: %s", data)
	}
	if fi, _ := os.Stat(filepath.Join(dir, webhook.ReplayFile)); fi.Mode().Perm() != 0o600 {
		t.Fatalf("window file mode %v, want 0600", fi.Mode().Perm())
	}
	sink2 := &countSink{}
	clk.add(30 * time.Minute)
	h2, stop2 := receiver(t, dir, clk, sink2)
	if code := deliver(h2, "id-5", "issues", payload); code != http.StatusAccepted || sink2.n() != 0 {
		t.Fatalf("replay after a restart: %d, %d runs; want 202 and none", code, sink2.n())
	}
	stop2()

	// Past the window the entry has expired: the same body runs again.
	clk.add(31 * time.Minute)
	sink3 := &countSink{}
	h3, stop3 := receiver(t, dir, clk, sink3)
	defer stop3()
	if code := deliver(h3, "id-6", "issues", payload); code != http.StatusAccepted || sink3.n() != 1 {
		t.Fatalf("after the window: %d, %d runs; want 202 and one", code, sink3.n())
	}
}

// failingSink refuses the first delivery, like an inbox that could not
// write.
type failingSink struct {
	countSink
	failed bool
}

func (s *failingSink) Deliver(ctx context.Context, inb channels.Inbound) error {
	s.mu.Lock()
	if !s.failed && !strings.HasPrefix(inb.MessageID, "probe-") {
		s.failed = true
		s.mu.Unlock()
		return os.ErrDeadlineExceeded
	}
	s.mu.Unlock()
	return s.countSink.Deliver(ctx, inb)
}

// TestUnrecordedDeliveryCanBeRedelivered: a delivery the sink could not
// record (503) is not remembered, so GitHub's redelivery runs.
func TestUnrecordedDeliveryCanBeRedelivered(t *testing.T) {
	clk := &clock{t: time.Unix(1_700_000_000, 0)}
	sink := &failingSink{}
	h, stop := receiver(t, "", clk, sink)
	defer stop()
	if code := deliver(h, "id-1", "issues", payload); code != http.StatusServiceUnavailable {
		t.Fatalf("first: %d, want 503", code)
	}
	if code := deliver(h, "id-1", "issues", payload); code != http.StatusAccepted || sink.n() != 1 {
		t.Fatalf("redelivery: %d, %d runs; want 202 and one", code, sink.n())
	}
}

// TestReplayWindowIsBounded: past ReplayEntries the oldest are forgotten
// and the file stays small.
func TestReplayWindowIsBounded(t *testing.T) {
	dir := t.TempDir()
	clk := &clock{t: time.Unix(1_700_000_000, 0)}
	rx, err := webhook.New(&webhook.Options{
		Routes:        []webhook.Route{{Name: "github", Path: "/hooks/github", Secret: secret}},
		Logger:        slog.New(slog.DiscardHandler),
		StateDir:      dir,
		ReplayEntries: 10,
		Now:           clk.now,
	})
	if err != nil {
		t.Fatal(err)
	}
	sink := &countSink{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { rx.Start(ctx, sink); close(done) }()
	defer func() { cancel(); <-done }()
	waitStarted(t, rx)
	for i := range 20 {
		clk.add(time.Second)
		body := []byte(fmt.Sprintf(`{"n":%d}`, i))
		if code := deliver(rx, fmt.Sprintf("bounded-%d", i), "push", body); code != http.StatusAccepted {
			t.Fatalf("delivery %d: %d", i, code)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, webhook.ReplayFile))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), `"k"`); n != 10 {
		t.Fatalf("window holds %d entries, want the bound of 10", n)
	}
	if sink.n() != 20 {
		t.Fatalf("%d runs, want 20 distinct deliveries", sink.n())
	}
}

// TestDamagedWindowIsSetAside: an unreadable window file is moved aside
// and the receiver starts.
func TestDamagedWindowIsSetAside(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, webhook.ReplayFile), []byte("{not json"), 0o600)
	if _, err := webhook.New(&webhook.Options{
		Routes:   []webhook.Route{{Name: "github", Path: "/hooks/github", Secret: secret}},
		Logger:   slog.New(slog.DiscardHandler),
		StateDir: dir,
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, webhook.ReplayFile+".corrupt")); err != nil {
		t.Fatalf("damaged window not set aside: %v", err)
	}
}
