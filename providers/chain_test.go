package providers_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/providers/providertest"
)

var quiet = slog.New(slog.DiscardHandler)

// fakeClock is an injected clock and sleeper: sleeping advances the clock
// and records the wait instead of blocking.
type fakeClock struct {
	mu    sync.Mutex
	now   time.Time
	waits []time.Duration
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}
}

func (f *fakeClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *fakeClock) Advance(d time.Duration) {
	f.mu.Lock()
	f.now = f.now.Add(d)
	f.mu.Unlock()
}

func (f *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f.mu.Lock()
	f.waits = append(f.waits, d)
	f.now = f.now.Add(d)
	f.mu.Unlock()
	return nil
}

func (f *fakeClock) Waits() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Duration(nil), f.waits...)
}

type fakeProvider struct {
	name, model string
	srv         *providertest.Server
	retries     int
	limit       int // when set, the client's body and line limits
}

// newChain builds a chain over one scripted server per provider, with the
// fake clock and jitter fixed at zero (so each backoff is its lower bound).
func newChain(t *testing.T, clock *fakeClock, fakes ...*fakeProvider) *providers.Chain {
	t.Helper()
	var cands []providers.Candidate
	for _, f := range fakes {
		if f.srv == nil {
			f.srv = providertest.NewServer(t)
		}
		client := newClient(t, f.srv.URL(), func(o *providers.ClientOptions) { o.Name = f.name })
		if f.limit > 0 {
			providers.SetLimits(client, f.limit, f.limit)
		}
		cands = append(cands, providers.Candidate{
			Provider:   f.name,
			Model:      f.model,
			Client:     client,
			MaxRetries: f.retries,
		})
	}
	c, err := providers.NewChain(&providers.ChainOptions{
		Candidates: cands,
		Health:     providers.NewHealth(clock.Now),
		Sleep:      clock.Sleep,
		Jitter:     func() float64 { return 0 },
		ModelKey:   "models_config.agent.model",
		Logger:     quiet,
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func status(code int, retryAfter string) providertest.Reply {
	r := providertest.Error(code, http.StatusText(code))
	if retryAfter != "" {
		r.Header.Set("Retry-After", retryAfter)
	}
	return r
}

func TestChainRetriesInPlace(t *testing.T) {
	for _, tt := range []struct {
		name      string
		retries   int
		script    []providertest.Reply
		wantWaits []time.Duration
		wantText  string // empty: the primary must fail
		wantReqs  int
	}{
		{"503 twice then success", 2, []providertest.Reply{status(503, ""), status(502, ""), providertest.Text("ok")},
			[]time.Duration{250 * time.Millisecond, 500 * time.Millisecond}, "ok", 3},
		{"429 honours Retry-After", 2, []providertest.Reply{status(429, "3"), providertest.Text("ok")},
			[]time.Duration{3 * time.Second}, "ok", 2},
		{"network error is retried", 1, []providertest.Reply{{DieAfterChunks: 1}, providertest.Text("ok")},
			[]time.Duration{250 * time.Millisecond}, "ok", 2},
		{"budget exhausted", 2, []providertest.Reply{status(500, ""), status(500, ""), status(500, "")},
			[]time.Duration{250 * time.Millisecond, 500 * time.Millisecond}, "", 3},
		{"zero retries fails at once", 0, []providertest.Reply{status(503, "")}, nil, "", 1},
		{"401 is not retried", 2, []providertest.Reply{status(401, "")}, nil, "", 1},
		{"long Retry-After is not waited out", 5, []providertest.Reply{status(429, "45")}, nil, "", 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			clock := newFakeClock()
			p := &fakeProvider{name: "prim", model: "m1", retries: tt.retries}
			c := newChain(t, clock, p)
			p.srv.Enqueue(tt.script...)
			resp, err := c.Chat(context.Background(), userRequest("hi"))
			if tt.wantText != "" {
				if err != nil || resp.Message.Content != tt.wantText || resp.FallbackNotice != "" || resp.Provider != "prim" {
					t.Fatalf("resp %+v, err %v", resp, err)
				}
			} else if !errors.Is(err, providers.ErrAllFailed) {
				t.Fatalf("err = %v, want ErrAllFailed", err)
			}
			if diff := cmp.Diff(tt.wantWaits, clock.Waits()); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
			if n := len(p.srv.Requests()); n != tt.wantReqs {
				t.Errorf("requests = %d, want %d", n, tt.wantReqs)
			}
		})
	}
}

func TestChainBackoffGrowsWithJitter(t *testing.T) {
	clock := newFakeClock()
	srv := providertest.NewServer(t)
	for range 5 {
		srv.Enqueue(status(503, ""))
	}
	srv.Enqueue(providertest.Text("ok"))
	c, err := providers.NewChain(&providers.ChainOptions{
		Candidates: []providers.Candidate{{Provider: "p", Model: "m", Client: newClient(t, srv.URL()), MaxRetries: 5}},
		Sleep:      clock.Sleep,
		Jitter:     func() float64 { return 0.5 },
		Logger:     quiet,
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Chat(context.Background(), userRequest("hi")); err != nil {
		t.Fatal(err)
	}
	// Half of each exponential step is fixed, the other half jittered.
	want := []time.Duration{375 * time.Millisecond, 750 * time.Millisecond, 1500 * time.Millisecond, 3 * time.Second, 6 * time.Second}
	if diff := cmp.Diff(want, clock.Waits()); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
}

func TestChainFallbackNoticeAndCooldown(t *testing.T) {
	clock := newFakeClock()
	prim := &fakeProvider{name: "openrouter", model: "gpt-4o", retries: 2}
	back := &fakeProvider{name: "groq", model: "llama-3.3-70b-versatile", retries: 2}
	c := newChain(t, clock, prim, back)

	// A Retry-After over 20s is not waited out: the primary cools down
	// and the fallback answers at once, with a notice.
	prim.srv.Enqueue(status(429, "60"))
	back.srv.Enqueue(providertest.Text("from groq"))
	resp, err := c.Chat(context.Background(), userRequest("hi"))
	if err != nil {
		t.Fatal(err)
	}
	want := "[fallback] openrouter (gpt-4o) failed (HTTP 429: Too Many Requests); answered by groq (llama-3.3-70b-versatile)."
	if resp.Message.Content != "from groq" || resp.FallbackNotice != want || resp.Provider != "groq" {
		t.Fatalf("resp = %+v\nwant notice %q", resp, want)
	}
	if len(clock.Waits()) != 0 {
		t.Errorf("waited %v for a long Retry-After", clock.Waits())
	}
	snap := c.Health().Snapshot()
	if len(snap) != 1 || snap[0].Provider != "openrouter" || snap[0].ConsecutiveFailures != 1 || snap[0].Cooldown != time.Minute {
		t.Fatalf("health = %+v", snap)
	}

	// While it cools down the primary is tried last, not dropped.
	back.srv.Enqueue(providertest.Text("groq again"))
	resp, err = c.Chat(context.Background(), userRequest("hi"))
	if err != nil || resp.Message.Content != "groq again" || !strings.Contains(resp.FallbackNotice, "openrouter (gpt-4o) is cooling down for 1m0s") {
		t.Fatalf("resp = %+v, %v", resp, err)
	}
	if n := len(prim.srv.Requests()); n != 1 {
		t.Fatalf("cooling primary was asked first: %d requests", n)
	}
	back.srv.Enqueue(status(400, ""))
	prim.srv.Enqueue(providertest.Text("primary, last resort"))
	resp, err = c.Chat(context.Background(), userRequest("hi"))
	if err != nil || resp.Message.Content != "primary, last resort" || resp.FallbackNotice != "" {
		t.Fatalf("a cooling provider must still be tried: %+v, %v", resp, err)
	}
	// That success reset the primary's record; groq's 400 is on record.
	if snap := c.Health().Snapshot(); len(snap) != 1 || snap[0].Provider != "groq" {
		t.Fatalf("health = %+v", snap)
	}

	// Once groq's cooldown passes, the configured order is back.
	clock.Advance(31 * time.Second)
	prim.srv.Enqueue(providertest.Text("primary"))
	if resp, err := c.Chat(context.Background(), userRequest("hi")); err != nil || resp.Message.Content != "primary" {
		t.Fatalf("%+v, %v", resp, err)
	}
}

func TestChainAllFail(t *testing.T) {
	clock := newFakeClock()
	a := &fakeProvider{name: "a", model: "m1"}
	b := &fakeProvider{name: "b", model: "m2"}
	c := newChain(t, clock, a, b)
	a.srv.Enqueue(status(401, ""))
	b.srv.Enqueue(providertest.Error(503, "overloaded"))
	_, err := c.Chat(context.Background(), userRequest("hi"))
	var apiErr *providers.APIError
	if !errors.Is(err, providers.ErrAllFailed) || !errors.As(err, &apiErr) || apiErr.StatusCode != 401 {
		t.Fatalf("err = %v", err)
	}
	want := "all 2 models failed: a: HTTP 401: Unauthorized [model m1]; b: HTTP 503: overloaded [model m2]"
	if err.Error() != want {
		t.Errorf("err = %q\nwant %q", err, want)
	}

	// With one model the error reads as that model's own.
	solo := &fakeProvider{name: "solo", model: "m"}
	single := newChain(t, clock, solo)
	solo.srv.Enqueue(providertest.Error(404, "no such model"))
	_, err = single.Chat(context.Background(), userRequest("hi"))
	if err == nil || err.Error() != "solo: HTTP 404: no such model" {
		t.Fatalf("err = %v", err)
	}
}

func TestChainCallerCancelStopsAtOnce(t *testing.T) {
	clock := newFakeClock()
	a := &fakeProvider{name: "a", model: "m", retries: 3}
	b := &fakeProvider{name: "b", model: "m"}
	c := newChain(t, clock, a, b)
	ctx, cancel := context.WithCancel(context.Background())
	a.srv.Enqueue(providertest.Reply{Delay: time.Minute})
	go func() {
		for len(a.srv.Requests()) == 0 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	_, err := c.Chat(ctx, userRequest("hi"))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if len(b.srv.Requests()) != 0 || len(clock.Waits()) != 0 {
		t.Fatal("a cancelled request was retried or failed over")
	}
	if len(c.Health().Snapshot()) != 0 {
		t.Fatal("a cancellation was blamed on the provider")
	}
}

// collect records the deltas a stream delivers.
type collect struct {
	notices []string
	text    strings.Builder
}

func (c *collect) on(d providers.Delta) {
	if d.Notice != "" {
		c.notices = append(c.notices, d.Notice)
	}
	c.text.WriteString(d.Content)
}

func TestChainStreamDeathRules(t *testing.T) {
	t.Run("dies before content: non-streaming retry", func(t *testing.T) {
		clock := newFakeClock()
		p := &fakeProvider{name: "p", model: "m", retries: 2}
		c := newChain(t, clock, p)
		p.srv.Enqueue(providertest.Reply{Content: "never seen", DieAfterChunks: 1}, providertest.Text("whole answer"))
		var got collect
		resp, err := c.ChatStream(context.Background(), userRequest("hi"), got.on)
		if err != nil || resp.Message.Content != "whole answer" || got.text.String() != "whole answer" || len(got.notices) != 0 {
			t.Fatalf("resp %+v, err %v, delivered %q %v", resp, err, got.text.String(), got.notices)
		}
		reqs := p.srv.Requests()
		if len(reqs) != 2 || !reqs[0].Stream || reqs[1].Stream {
			t.Fatalf("want a stream then a plain request, got %d requests", len(reqs))
		}
	})
	t.Run("dies before content: falls over with a notice first", func(t *testing.T) {
		clock := newFakeClock()
		a := &fakeProvider{name: "a", model: "m1"}
		b := &fakeProvider{name: "b", model: "m2"}
		c := newChain(t, clock, a, b)
		a.srv.Enqueue(status(500, ""))
		b.srv.Enqueue(providertest.Text("fallback text"))
		var order []string
		resp, err := c.ChatStream(context.Background(), userRequest("hi"), func(d providers.Delta) {
			if d.Notice != "" {
				order = append(order, "notice")
			}
			if d.Content != "" {
				order = append(order, d.Content)
			}
		})
		if err != nil || resp.FallbackNotice == "" {
			t.Fatalf("resp %+v, err %v", resp, err)
		}
		if diff := cmp.Diff([]string{"notice", "fallback text"}, order); diff != "" {
			t.Errorf("delivery order (-want +got):\n%s", diff)
		}
		if b.srv.Requests()[0].Stream {
			t.Error("the fallback after a dead stream must use the non-streaming path")
		}
	})
	t.Run("dies after content: partial answer and error, no retry", func(t *testing.T) {
		clock := newFakeClock()
		a := &fakeProvider{name: "a", model: "m1", retries: 2}
		b := &fakeProvider{name: "b", model: "m2"}
		c := newChain(t, clock, a, b)
		a.srv.Enqueue(providertest.Reply{Content: "one two three four", Chunks: 4, DieAfterChunks: 3})
		var got collect
		resp, err := c.ChatStream(context.Background(), userRequest("hi"), got.on)
		if !errors.Is(err, providers.ErrStreamInterrupted) || errors.Is(err, providers.ErrAllFailed) {
			t.Fatalf("err = %v", err)
		}
		if resp == nil || resp.Message.Content == "" || resp.Message.Content != got.text.String() {
			t.Fatalf("partial answer lost: %+v, delivered %q", resp, got.text.String())
		}
		if len(a.srv.Requests()) != 1 || len(b.srv.Requests()) != 0 {
			t.Fatal("text already shown was retried")
		}
	})
}

func TestChainValidation(t *testing.T) {
	cl := &providers.Client{}
	for _, opts := range []*providers.ChainOptions{
		nil,
		{},
		{Candidates: []providers.Candidate{{Provider: "x"}}},
		{Candidates: []providers.Candidate{{Provider: "x", Client: cl, MaxRetries: 11}}},
		{Candidates: []providers.Candidate{{Provider: "x", Client: cl, MaxRetries: -1}}},
	} {
		if _, err := providers.NewChain(opts); err == nil {
			t.Errorf("NewChain(%+v) accepted", opts)
		}
	}
}

func TestChainStreamsFromFallbackWhilePrimaryCools(t *testing.T) {
	clock := newFakeClock()
	prim := &fakeProvider{name: "a", model: "m1"}
	back := &fakeProvider{name: "b", model: "m2"}
	c := newChain(t, clock, prim, back)
	c.Health().Failure("a", errors.New("a: HTTP 429: slow down"), time.Minute)

	back.srv.Enqueue(providertest.Reply{Content: "streamed by b", Chunks: 3})
	var order []string
	resp, err := c.ChatStream(context.Background(), userRequest("hi"), func(d providers.Delta) {
		if d.Notice != "" {
			order = append(order, "notice: "+d.Notice)
		}
		if d.Content != "" {
			order = append(order, d.Content)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"notice: [fallback] a (m1) is cooling down for 1m0s after: HTTP 429: slow down; answered by b (m2).", "strea", "med b", "y b"}
	if diff := cmp.Diff(want, order); diff != "" {
		t.Errorf("deltas (-want +got):\n%s", diff)
	}
	if !back.srv.Requests()[0].Stream || len(prim.srv.Requests()) != 0 || resp.FallbackNotice == "" {
		t.Errorf("the fallback should have streamed while the primary cooled down")
	}
}

func TestChainBadUpstreamBodies(t *testing.T) {
	html := providertest.Reply{Status: 502, Body: "<html><head><title>502 Bad Gateway</title></head><body><h1>nginx</h1></body></html>"}
	for _, tt := range []struct {
		name     string
		first    providertest.Reply
		wantReqs int    // requests to the primary before it gives up or answers
		want     string // in the fallback notice
	}{
		{"proxy HTML page is retried and named by its title", html, 2, "HTTP 502: 502 Bad Gateway"},
		{"truncated JSON is retried", providertest.Reply{Body: `{"choices":[{"message":{"content":"cut`}, 2, "decode response"},
		{"oversize answer is not retried", providertest.Reply{Body: `{"choices":[{"message":{"content":"` + strings.Repeat("x", 2048) + `"}}]}`}, 1, "exceeds the 1 KiB limit"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			clock := newFakeClock()
			prim := &fakeProvider{name: "a", model: "m1", retries: 1, limit: 1024}
			back := &fakeProvider{name: "b", model: "m2"}
			c := newChain(t, clock, prim, back)
			if tt.wantReqs == 2 {
				prim.srv.Enqueue(tt.first, tt.first)
			} else {
				prim.srv.Enqueue(tt.first)
			}
			back.srv.Enqueue(providertest.Text("fine"))
			resp, err := c.Chat(context.Background(), userRequest("hi"))
			if err != nil || resp.Message.Content != "fine" || !strings.Contains(resp.FallbackNotice, tt.want) {
				t.Fatalf("resp %+v, err %v", resp, err)
			}
			if n := len(prim.srv.Requests()); n != tt.wantReqs {
				t.Errorf("primary asked %d times, want %d", n, tt.wantReqs)
			}
		})
	}
}
