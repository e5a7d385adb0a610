package telegram_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/joshbot/joshbot/channels/telegram"
)

func TestNewRejectsBadConfig(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts *telegram.Options
		want string
	}{
		{"nil", nil, "Options.Token"},
		{"no token", &telegram.Options{}, "Options.Token"},
		{"ftp", &telegram.Options{Token: "x", APIURL: "ftp://example.com"}, "Options.APIURL"},
		{"no scheme", &telegram.Options{Token: "x", APIURL: "example.com/bot"}, "Options.APIURL"},
		{"unparseable", &telegram.Options{Token: "x", APIURL: "http://[::1"}, "Options.APIURL"},
		{"no host", &telegram.Options{Token: "x", APIURL: "https://"}, "Options.APIURL"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := telegram.New(tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "channels.") {
				t.Fatalf("New() error = %v, want one naming %s and no config key", err, tt.want)
			}
		})
	}
	for _, ok := range []string{"", "http://127.0.0.1:8081", "https://bots.example.com/"} {
		if _, err := telegram.New(&telegram.Options{Token: "x", APIURL: ok}); err != nil {
			t.Errorf("New(api_url=%q) = %v, want nil", ok, err)
		}
	}
}

func TestAttachmentLimitsFollowAPIURL(t *testing.T) {
	pub, _ := telegram.New(&telegram.Options{Token: "x"})
	self, _ := telegram.New(&telegram.Options{Token: "x", APIURL: "http://127.0.0.1:8081"})
	if got := pub.Limits().File; got != 10<<20 {
		t.Errorf("public Bot API file cap = %d, want 10 MiB", got)
	}
	if got := self.Limits().File; got != 50<<20 {
		t.Errorf("self-hosted file cap = %d, want 50 MiB", got)
	}
}

func TestStartSurvivesNetworkFailuresAndResetsOnlyOnUpdates(t *testing.T) {
	h := newHarness(t, nil, false)
	h.fake.dropPolls = 3
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.tg.Start(ctx, h.sink) }()

	// Three dropped polls, then empty polls: sleeps, and no reset yet.
	waitFor(t, "three failed polls and a good one", func() bool { return len(h.fake.callsOf("getUpdates")) >= 5 })
	if got := h.bo.log(); !slices.Equal(got, []string{"sleep", "sleep", "sleep"}) {
		t.Fatalf("backoff after failures and empty polls = %v, want three sleeps and no reset", got)
	}
	h.fake.push(msg(map[string]any{"text": "hello"}))
	waitFor(t, "delivery", func() bool { return len(h.sink.delivered()) == 1 })
	waitFor(t, "reset", func() bool { return len(h.bo.log()) == 4 })
	if got := h.bo.log(); got[3] != "reset" {
		t.Fatalf("backoff events = %v, want a reset after the update", got)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Start = %v, want context.Canceled", err)
	}
}

func TestStartAcknowledgesOnlyAfterDeliver(t *testing.T) {
	h := newHarness(t, nil, false)
	h.sink.fail = 2
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- h.tg.Start(ctx, h.sink) }()
	id := h.fake.push(msg(map[string]any{"text": "one"}))
	h.fake.push(msg(map[string]any{"message_id": 11, "text": "two"}))
	waitFor(t, "both delivered", func() bool { return len(h.sink.delivered()) == 2 })
	got := h.sink.delivered()
	if got[0].Text != "one" || got[1].Text != "two" {
		t.Fatalf("delivered %q, %q; want one, two in order", got[0].Text, got[1].Text)
	}
	// The offset stays on the refused update (it is fetched again) and
	// moves past both only after they were delivered.
	waitFor(t, "offset past both", func() bool {
		ps := h.fake.callsOf("getUpdates")
		return ps[len(ps)-1].Params["offset"] == "3"
	})
	var offsets []string
	for _, p := range h.fake.callsOf("getUpdates") {
		offsets = append(offsets, p.Params["offset"])
	}
	if !slices.Equal(offsets[:3], []string{"0", "0", "0"}) || slices.Contains(offsets, "2") {
		t.Fatalf("getUpdates offsets = %v, want 0 until both were delivered, then 3", offsets)
	}
	_ = id
	if h.sink.refused != 2 {
		t.Fatalf("refused deliveries = %d, want 2", h.sink.refused)
	}
	cancel()
	<-done
}

func TestStartReturnsOnRejectedToken(t *testing.T) {
	f := newFake(t)
	tg, err := telegram.New(&telegram.Options{Token: "wrong", APIURL: f.srv.URL, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := tg.Start(ctx, &recordingSink{}); !errors.Is(err, telegram.ErrUnauthorized) {
		t.Fatalf("Start = %v, want ErrUnauthorized", err)
	}
}

func TestStartWaitsOutAFloodLimitedPoll(t *testing.T) {
	h := newHarness(t, nil, false)
	w := &waits{}
	h.tg.SetClock(time.Now, w.after)
	limited := true
	h.fake.override = func(c apiCall) (int, string) {
		if c.Method == "getUpdates" && limited {
			limited = false
			return http.StatusTooManyRequests, `{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 9","parameters":{"retry_after":9}}`
		}
		return 0, ""
	}
	h.fake.push(msg(map[string]any{"text": "after the limit"}))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.tg.Start(ctx, h.sink) }()
	waitFor(t, "delivery", func() bool { return len(h.sink.delivered()) == 1 })
	cancel()
	<-done
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.d) == 0 || w.d[0] != 9*time.Second {
		t.Errorf("waits = %v, want the 9s retry_after first", w.d)
	}
	if got := h.bo.log(); slices.Contains(got, "sleep") {
		t.Errorf("backoff = %v: a flood limit is waited out, not counted as a failure", got)
	}
}
