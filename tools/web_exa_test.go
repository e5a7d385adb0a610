//go:build unix

package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeExaCLI writes an `exa` executable (a shell script running body) into
// a fresh directory put first on PATH, and returns that directory. The
// script may record into $DIR.
func fakeExaCLI(t *testing.T, body string) string {
	t.Helper()
	dir := t.TempDir()
	script := "#!/bin/sh\nDIR=" + dir + "\n" + body + "\n"
	if err := os.WriteFile(filepath.Join(dir, "exa"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return dir
}

const exaCLIAnswer = `{"requestId":"r1","results":[{"title":"Go generics","url":"https://go.dev/doc/tutorial/generics","text":"Tutorial:  getting started\nwith generics"},{"title":"Second","url":"https://example.com/2","text":"two"}]}`

// exaMCPText is how Exa's MCP server words a web_search_exa answer.
const exaMCPText = "Title: Exa over MCP\nURL: https://exa.ai/mcp\nPublished Date: 2025-01-01\nText: Results from the MCP leg.\n\nTitle: Another\nURL: https://example.com/mcp2\nText: more\n"

func TestExaCLIBackend(t *testing.T) {
	dir := fakeExaCLI(t, `printf '%s\n' "$@" > "$DIR/args"; env > "$DIR/env"; printf '%s\n' '`+exaCLIAnswer+`'`)
	t.Setenv("OPENAI_API_KEY", "sk-must-not-leak")
	b := NewExaCLI(&ExaCLIOptions{APIKey: "exa-key-1"})
	res, err := b.Search(context.Background(), SearchQuery{Text: "-generics in go", Max: 3, Category: "code"})
	if err != nil {
		t.Fatal(err)
	}
	want := []SearchResult{
		{Title: "Go generics", URL: "https://go.dev/doc/tutorial/generics", Snippet: "Tutorial: getting started with generics"},
		{Title: "Second", URL: "https://example.com/2", Snippet: "two"},
	}
	if fmt.Sprint(res) != fmt.Sprint(want) {
		t.Fatalf("results:\n got %+v\nwant %+v", res, want)
	}
	args, _ := os.ReadFile(filepath.Join(dir, "args"))
	if got := string(args); got != "search\n -generics in go\n--num-results\n3\n--category\ngithub\n--json\n" {
		t.Fatalf("exa ran with %q", got)
	}
	env, _ := os.ReadFile(filepath.Join(dir, "env"))
	if !strings.Contains(string(env), "EXA_API_KEY=exa-key-1") || strings.Contains(string(env), "sk-must-not-leak") {
		t.Fatalf("exa's environment:\n%s", env)
	}

	fakeExaCLI(t, `echo 'exa: invalid API key' >&2; exit 3`)
	if _, err := b.Search(context.Background(), SearchQuery{Text: "x"}); err == nil || !strings.Contains(err.Error(), "invalid API key") {
		t.Fatalf("failing exa: %v", err)
	}
	fakeExaCLI(t, `echo 'not json at all'`)
	if _, err := b.Search(context.Background(), SearchQuery{Text: "x"}); err == nil || !strings.Contains(err.Error(), "no Exa JSON") {
		t.Fatalf("garbled exa: %v", err)
	}
	_, err = NewExaCLI(&ExaCLIOptions{Program: "exa-not-installed-here"}).Search(context.Background(), SearchQuery{Text: "x"})
	if err == nil || !strings.Contains(err.Error(), `no "exa-not-installed-here" executable on PATH`) {
		t.Fatalf("missing program: %v", err)
	}
}

// mcpExaTools stands in for the MCP manager's lookup, offering the named
// tools, each answering with text as Exa's server words it.
type mcpExaTools map[string]func(args map[string]any) (string, error)

func (m mcpExaTools) MCPTool(remote string) (Tool, bool) {
	fn, ok := m[remote]
	if !ok {
		return nil, false
	}
	return &exaRemoteTool{name: "mcp__exa__" + remote, fn: fn}, true
}

type exaRemoteTool struct {
	name string
	fn   func(map[string]any) (string, error)
}

func (t *exaRemoteTool) Name() string                { return t.name }
func (t *exaRemoteTool) Description() string         { return "" }
func (t *exaRemoteTool) Parameters() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (t *exaRemoteTool) Execute(_ context.Context, raw json.RawMessage) (string, error) {
	var a map[string]any
	json.Unmarshal(raw, &a)
	out, err := t.fn(a)
	return fenceOutput(t.name, out), err
}

func ddgServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, ddgPage) }))
	t.Cleanup(srv.Close)
	return srv
}

// TestWebChainLegs runs each operation through the chain exa-cli → Exa
// MCP → DuckDuckGo, failing one more leg each time.
func TestWebChainLegs(t *testing.T) {
	ddg := ddgServer(t)
	var mcpCalls []string
	mcp := mcpExaTools{}
	for _, name := range []string{"web_search_exa", "get_code_context_exa", "company_research_exa"} {
		mcp[name] = func(a map[string]any) (string, error) {
			mcpCalls = append(mcpCalls, name+" "+fmt.Sprint(a))
			return exaMCPText, nil
		}
	}
	chain := func() []Tool {
		return newWebSearchTools(&WebSearchOptions{Backends: []SearchBackend{
			NewExaCLI(nil), NewExaMCP(mcp), NewDuckDuckGo(&DuckDuckGoOptions{URL: ddg.URL}),
		}})
	}
	q := json.RawMessage(`{"query":"acme corp","max_results":2}`)
	ops := []string{"web_search", "web_code", "web_company", "web_research"}

	// 1. exa-cli answers.
	fakeExaCLI(t, `printf '%s\n' '`+exaCLIAnswer+`'`)
	for _, op := range ops {
		out, err := searchTool(t, chain(), op).Execute(context.Background(), q)
		if err != nil || !strings.Contains(out, "(via exa-cli)") || !strings.Contains(out, "https://go.dev/doc/tutorial/generics") {
			t.Fatalf("%s with exa-cli: %q, %v", op, out, err)
		}
	}

	// 2. exa-cli fails: Exa's MCP tools answer, the right one per operation.
	fakeExaCLI(t, `echo 'rate limited' >&2; exit 1`)
	for _, op := range ops {
		out, err := searchTool(t, chain(), op).Execute(context.Background(), q)
		if err != nil || !strings.Contains(out, "(via exa-mcp)") || !strings.Contains(out, "https://exa.ai/mcp") ||
			!strings.Contains(out, "fell back after: exa-cli:") || !strings.Contains(out, "rate limited") {
			t.Fatalf("%s via MCP: %q, %v", op, out, err)
		}
	}
	wantCalls := []string{
		"web_search_exa map[numResults:2 query:acme corp]",
		"get_code_context_exa map[query:acme corp]",
		"company_research_exa map[companyName:acme corp numResults:2]",
		"web_search_exa map[numResults:2 query:acme corp]",
	}
	if fmt.Sprint(mcpCalls) != fmt.Sprint(wantCalls) {
		t.Fatalf("MCP calls:\n got %q\nwant %q", mcpCalls, wantCalls)
	}

	// 3. Both Exa legs fail: DuckDuckGo, plainly marked as degraded.
	for name := range mcp {
		mcp[name] = func(map[string]any) (string, error) { return "", fmt.Errorf("exa mcp: quota exceeded") }
	}
	for _, op := range ops {
		out, err := searchTool(t, chain(), op).Execute(context.Background(), q)
		if err != nil || !strings.Contains(out, "(via duckduckgo)") ||
			!strings.Contains(out, "Degraded/best-effort: results from DuckDuckGo after Exa failed: exa-cli: ") ||
			!strings.Contains(out, "exa-mcp: ") || !strings.Contains(out, "quota exceeded") || !strings.Contains(out, "https://go.dev/doc/") {
			t.Fatalf("%s via DuckDuckGo: %q, %v", op, out, err)
		}
	}

	// An MCP server without the narrower tool: web_search_exa answers.
	delete(mcp, "get_code_context_exa")
	mcp["web_search_exa"] = func(map[string]any) (string, error) { return exaMCPText, nil }
	res, err := NewExaMCP(mcp).Search(context.Background(), SearchQuery{Text: "x", Max: 5, Category: "code"})
	if err != nil || len(res) != 2 || res[0].URL != "https://exa.ai/mcp" || res[0].Snippet != "Results from the MCP leg." {
		t.Fatalf("code search without get_code_context_exa: %+v, %v", res, err)
	}
	if _, err := NewExaMCP(mcpExaTools{}).Search(context.Background(), SearchQuery{Text: "x"}); err == nil || !strings.Contains(err.Error(), "no connected MCP server offers web_search_exa") {
		t.Fatalf("no Exa server: %v", err)
	}
}

// TestWebChainFirstLegHangs: exa-cli never answers; its leg ends at its
// share of the turn, the later legs still run, and the answer comes
// within the turn's time minus the finish reserve.
func TestWebChainFirstLegHangs(t *testing.T) {
	fakeExaCLI(t, `exec sleep 30`)
	ddg := ddgServer(t)
	tools := newWebSearchTools(&WebSearchOptions{
		Backends:      []SearchBackend{NewExaCLI(nil), NewExaMCP(mcpExaTools{}), NewDuckDuckGo(&DuckDuckGoOptions{URL: ddg.URL})},
		FinishReserve: 500 * time.Millisecond,
	})
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	out, err := searchTool(t, tools, "web_research").Execute(ctx, json.RawMessage(`{"query":"x"}`))
	took := time.Since(start)
	if err != nil || !strings.Contains(out, "(via duckduckgo)") || !strings.Contains(out, "exa-cli: no answer in time") {
		t.Fatalf("got %q, %v", out, err)
	}
	if took > 2500*time.Millisecond {
		t.Fatalf("answered after %s, past the turn's 3s minus the 0.5s reserve", took)
	}
	// The hung leg was cut at its share (2.5s over three legs), not at the
	// 45s research budget.
	if took < 700*time.Millisecond {
		t.Fatalf("answered after %s: the hanging leg did not run", took)
	}
}

// TestDuckDuckGoEngineDeadline: one engine request has its own deadline,
// shorter than the search's.
func TestDuckDuckGoEngineDeadline(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	_, err := NewDuckDuckGo(&DuckDuckGoOptions{URL: srv.URL, EngineTimeout: 200 * time.Millisecond}).Search(ctx, SearchQuery{Text: "x"})
	if err == nil || time.Since(start) > 2*time.Second {
		t.Fatalf("hung engine: %v after %s", err, time.Since(start))
	}
	if d := NewDuckDuckGo(nil).(*duckDuckGo).engineTimeout; d != 10*time.Second {
		t.Fatalf("default engine deadline %s, want 10s", d)
	}
}

// TestWebChainBudgetIsTheOperations: without a turn deadline, the
// operation's budget bounds the whole chain, shared among its legs, not
// each leg.
func TestWebChainBudgetIsTheOperations(t *testing.T) {
	hang := func(ctx context.Context) ([]SearchResult, error) { <-ctx.Done(); return nil, ctx.Err() }
	a, b, c := &scripted{name: "a", fn: hang}, &scripted{name: "b", fn: hang}, &scripted{name: "c", fn: hang}
	tools := newWebSearchTools(&WebSearchOptions{Backends: []SearchBackend{a, b, c}, CodeTimeout: 600 * time.Millisecond})
	start := time.Now()
	_, err := searchTool(t, tools, "web_code").Execute(context.Background(), json.RawMessage(`{"query":"x"}`))
	if took := time.Since(start); err == nil || took > 900*time.Millisecond || took < 500*time.Millisecond {
		t.Fatalf("three hanging legs under a 600ms budget: %v after %s", err, took)
	}
	if a.calls != 1 || b.calls != 1 || c.calls != 1 {
		t.Fatalf("legs tried: %d %d %d", a.calls, b.calls, c.calls)
	}
}
