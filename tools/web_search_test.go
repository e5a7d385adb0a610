package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

const ddgPage = `<html><body>
<div class="result results_links results_links_deep web-result">
  <h2 class="result__title"><a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fgo.dev%2Fdoc%2F&amp;rut=abc">The Go <b>Programming</b> Language</a></h2>
  <a class="result__snippet" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fgo.dev%2Fdoc%2F">Documentation &amp; tutorials for <b>Go</b>.</a>
</div>
<div class="result results_links results_links_deep web-result">
  <h2 class="result__title"><a rel="nofollow" class="result__a" href="https://pkg.go.dev/">Go Packages</a></h2>
  <a class="result__snippet" href="https://pkg.go.dev/">Discover packages.</a>
</div>
</body></html>`

func TestDuckDuckGoBackend(t *testing.T) {
	var gotQuery string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		gotQuery = r.PostForm.Get("q")
		fmt.Fprint(w, ddgPage)
	}))
	defer srv.Close()
	res, err := NewDuckDuckGo(&DuckDuckGoOptions{URL: srv.URL}).Search(context.Background(), SearchQuery{Text: "golang docs", Max: 5})
	if err != nil {
		t.Fatal(err)
	}
	want := []SearchResult{
		{Title: "The Go Programming Language", URL: "https://go.dev/doc/", Snippet: "Documentation & tutorials for Go."},
		{Title: "Go Packages", URL: "https://pkg.go.dev/", Snippet: "Discover packages."},
	}
	if gotQuery != "golang docs" || fmt.Sprint(res) != fmt.Sprint(want) {
		t.Fatalf("query %q, results:\n got %+v\nwant %+v", gotQuery, res, want)
	}
}

func TestExaBackend(t *testing.T) {
	var body map[string]any
	var key string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key = r.Header.Get("x-api-key")
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &body)
		fmt.Fprint(w, `{"results":[{"title":"Paper","url":"https://arxiv.org/abs/1","text":"An  abstract\nhere"}]}`)
	}))
	defer srv.Close()
	if _, err := NewExa(&ExaOptions{}); err == nil {
		t.Fatal("Exa without a key accepted")
	}
	e, err := NewExa(&ExaOptions{APIKey: "exa-test-key", URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Search(context.Background(), SearchQuery{Text: "transformers", Max: 3, Category: "research"})
	if err != nil {
		t.Fatal(err)
	}
	if key != "exa-test-key" || body["query"] != "transformers" || body["category"] != "research paper" || body["numResults"] != float64(3) {
		t.Fatalf("request: key %q body %v", key, body)
	}
	if len(res) != 1 || res[0].Snippet != "An abstract here" {
		t.Fatalf("results %+v", res)
	}
}

// scripted is a backend whose behaviour the test sets per call.
type scripted struct {
	name  string
	mu    sync.Mutex
	calls int
	fn    func(ctx context.Context) ([]SearchResult, error)
}

func (s *scripted) Name() string { return s.name }
func (s *scripted) Search(ctx context.Context, _ SearchQuery) ([]SearchResult, error) {
	s.mu.Lock()
	s.calls++
	s.mu.Unlock()
	return s.fn(ctx)
}

func ok(title string) func(context.Context) ([]SearchResult, error) {
	return func(context.Context) ([]SearchResult, error) {
		return []SearchResult{{Title: title, URL: "https://example.com/" + title}}, nil
	}
}

func fail(context.Context) ([]SearchResult, error) { return nil, errors.New("HTTP 500") }

func searchTool(t *testing.T, tools []Tool, name string) Tool {
	for _, tl := range tools {
		if tl.Name() == name {
			return tl
		}
	}
	t.Fatalf("no tool %s", name)
	return nil
}

func TestWebSearchFallbackAndHealth(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	exa := &scripted{name: "exa", fn: fail}
	ddg := &scripted{name: "duckduckgo", fn: ok("ddg")}
	tools := newWebSearchTools(&WebSearchOptions{Backends: []SearchBackend{exa, ddg}, Cooldown: time.Minute, Now: clock})
	search := searchTool(t, tools, "web_search")
	q := json.RawMessage(`{"query":"x"}`)

	out, err := search.Execute(context.Background(), q)
	if err != nil || !strings.Contains(out, "via duckduckgo") || !strings.Contains(out, "Degraded/best-effort: results from DuckDuckGo after Exa failed: exa: HTTP 500.") {
		t.Fatalf("first call: %q, %v", out, err)
	}
	if exa.calls != 1 || ddg.calls != 1 {
		t.Fatalf("calls exa=%d ddg=%d", exa.calls, ddg.calls)
	}
	// Exa is cooling down: DuckDuckGo goes first and exa is not asked.
	if _, err := search.Execute(context.Background(), q); err != nil || exa.calls != 1 || ddg.calls != 2 {
		t.Fatalf("during cooldown: err %v, calls exa=%d ddg=%d", err, exa.calls, ddg.calls)
	}
	// Health is per operation: web_code still tries exa first.
	if _, err := searchTool(t, tools, "web_code").Execute(context.Background(), q); err != nil || exa.calls != 2 {
		t.Fatalf("web_code: err %v, exa calls %d", err, exa.calls)
	}
	// After the cooldown exa is first again, and a success clears it.
	now = now.Add(61 * time.Second)
	exa.fn = ok("exa")
	out, err = search.Execute(context.Background(), q)
	if err != nil || !strings.Contains(out, "via exa") || exa.calls != 3 {
		t.Fatalf("after cooldown: %q, %v, exa calls %d", out, err, exa.calls)
	}
	// A degraded alias result says so.
	exa.fn = fail
	out, err = searchTool(t, tools, "web_research").Execute(context.Background(), q)
	if err != nil || !strings.Contains(out, "degraded/best-effort") {
		t.Fatalf("web_research via ddg: %q, %v", out, err)
	}
	// Every backend failing is an error naming each.
	ddg.fn = fail
	now = now.Add(time.Hour)
	if _, err := search.Execute(context.Background(), q); err == nil || !strings.Contains(err.Error(), "exa: HTTP 500") || !strings.Contains(err.Error(), "duckduckgo: HTTP 500") {
		t.Fatalf("all failing: %v", err)
	}
}

func TestWebSearchSubDeadlines(t *testing.T) {
	var sawDeadline time.Time
	slow := &scripted{name: "slow", fn: func(ctx context.Context) ([]SearchResult, error) {
		sawDeadline, _ = ctx.Deadline()
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	fast := &scripted{name: "fast", fn: ok("fast")}
	tools := newWebSearchTools(&WebSearchOptions{Backends: []SearchBackend{slow, fast}, SearchTimeout: 10 * time.Second, FinishReserve: time.Second})
	search := searchTool(t, tools, "web_search")

	start := time.Now()
	ctx, cancel := context.WithDeadline(context.Background(), start.Add(1300*time.Millisecond))
	defer cancel()
	out, err := search.Execute(ctx, json.RawMessage(`{"query":"x"}`))
	if err != nil || !strings.Contains(out, "via fast") {
		t.Fatalf("got %q, %v", out, err)
	}
	// The slow backend got half of what was left of the turn minus the
	// reserve (about 150ms), not the 10s budget, leaving the rest for the
	// fallback.
	if d := sawDeadline.Sub(start); d > 250*time.Millisecond || d <= 0 {
		t.Fatalf("slow backend's sub-deadline was %s after the start, want about 150ms", d)
	}

	// With less time left than the reserve, nothing is tried.
	ctx2, cancel2 := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel2()
	before := slow.calls + fast.calls
	if _, err := search.Execute(ctx2, json.RawMessage(`{"query":"x"}`)); err == nil || !strings.Contains(err.Error(), "no time left") {
		t.Fatalf("want a no-time-left error, got %v", err)
	}
	if slow.calls+fast.calls != before {
		t.Fatal("a backend was called with no time left")
	}
}
