package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/joshbot/joshbot/sandbox/egress"
	"github.com/joshbot/joshbot/sandbox/fence"
)

// SearchQuery is one search request to a backend.
type SearchQuery struct {
	// Text is what to search for.
	Text string
	// Max is the most results wanted; backends may return fewer.
	Max int
	// Category narrows the search where a backend can: "" (general),
	// "code", "company" or "research". A backend that cannot narrow
	// ignores it.
	Category string
}

// SearchResult is one hit.
type SearchResult struct {
	// Title is the page title as the backend reported it.
	Title string
	// URL is the result's address, unwrapped from any redirect link.
	URL string
	// Snippet is a short excerpt; empty when the backend gave none.
	Snippet string
}

// SearchBackend is one search engine. Implementations must honour ctx's
// deadline, which the fallback logic carves for each attempt.
type SearchBackend interface {
	// Name identifies the backend in results, errors and the health map.
	Name() string
	// Search runs q.
	Search(ctx context.Context, q SearchQuery) ([]SearchResult, error)
}

// DuckDuckGoOptions configures [NewDuckDuckGo]. Nil means defaults.
type DuckDuckGoOptions struct {
	// URL is the HTML endpoint; empty means https://html.duckduckgo.com/html/.
	URL string
	// Client sends the requests. Nil means searchClient(URL): for the
	// public default endpoint, a client guarded by package egress.
	Client *http.Client
	// EngineTimeout bounds one request to the engine, within whatever
	// deadline the search already has; zero means 10s.
	EngineTimeout time.Duration
}

// NewDuckDuckGo returns the keyless DuckDuckGo HTML backend.
func NewDuckDuckGo(opts *DuckDuckGoOptions) SearchBackend {
	d := &duckDuckGo{url: "https://html.duckduckgo.com/html/"}
	if opts == nil {
		opts = &DuckDuckGoOptions{}
	}
	if opts.URL != "" {
		d.url = opts.URL
	}
	d.client = opts.Client
	if d.client == nil {
		d.client = searchClient(opts.URL)
	}
	d.engineTimeout = opts.EngineTimeout
	if d.engineTimeout <= 0 {
		d.engineTimeout = 10 * time.Second
	}
	return d
}

type duckDuckGo struct {
	url           string
	client        *http.Client
	engineTimeout time.Duration
}

func (d *duckDuckGo) Name() string { return "duckduckgo" }

var (
	reDDGLink    = &lazyRegexp{expr: `(?s)<a[^>]*class="[^"]*result__a[^"]*"[^>]*href="([^"]*)"[^>]*>(.*?)</a>`}
	reDDGSnippet = &lazyRegexp{expr: `(?s)class="[^"]*result__snippet[^"]*"[^>]*>(.*?)</(?:a|div|td)>`}
)

func (d *duckDuckGo) Search(ctx context.Context, q SearchQuery) ([]SearchResult, error) {
	ctx, cancel := context.WithTimeout(ctx, d.engineTimeout)
	defer cancel()
	form := url.Values{"q": {q.Text}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.url, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("User-Agent", "Mozilla/5.0 (compatible; joshbot)")
	body, err := doSearch(d.client, req)
	if err != nil {
		return nil, err
	}
	links := reDDGLink.get().FindAllStringSubmatch(body, -1)
	snippets := reDDGSnippet.get().FindAllStringSubmatch(body, -1)
	var out []SearchResult
	for i, m := range links {
		if q.Max > 0 && len(out) >= q.Max {
			break
		}
		r := SearchResult{URL: ddgTarget(unescapeHTML(m[1])), Title: cleanHTML(m[2])}
		if i < len(snippets) {
			r.Snippet = cleanHTML(snippets[i][1])
		}
		if r.URL != "" {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		if strings.Contains(body, "anomaly") || strings.Contains(body, "challenge") {
			return nil, errors.New("DuckDuckGo answered with a bot challenge instead of results")
		}
		return nil, errors.New("no results")
	}
	return out, nil
}

// ddgTarget unwraps DuckDuckGo's redirect links (//duckduckgo.com/l/?uddg=...).
func ddgTarget(href string) string {
	u, err := url.Parse(href)
	if err != nil {
		return ""
	}
	if t := u.Query().Get("uddg"); t != "" {
		return t
	}
	if u.Scheme == "" {
		u.Scheme = "https"
	}
	return u.String()
}

func cleanHTML(s string) string {
	return strings.Join(strings.Fields(unescapeHTML(reTag.get().ReplaceAllString(s, ""))), " ")
}

// ExaOptions configures [NewExa].
type ExaOptions struct {
	// APIKey is required.
	APIKey string
	// URL is the API base; empty means https://api.exa.ai.
	URL string
	// Client sends the requests. Nil means searchClient(URL): for the
	// public default endpoint, a client guarded by package egress.
	Client *http.Client
}

// NewExa returns the Exa search backend. It needs an API key.
func NewExa(opts *ExaOptions) (SearchBackend, error) {
	if opts == nil || strings.TrimSpace(opts.APIKey) == "" {
		return nil, errors.New("exa: ExaOptions.APIKey is empty: the Exa backend needs an API key")
	}
	e := &exa{key: opts.APIKey, url: strings.TrimRight(opts.URL, "/"), client: opts.Client}
	if e.url == "" {
		e.url = "https://api.exa.ai"
	}
	if e.client == nil {
		e.client = searchClient(opts.URL)
	}
	return e, nil
}

type exa struct {
	key, url string
	client   *http.Client
}

func (e *exa) Name() string { return "exa" }

func (e *exa) Search(ctx context.Context, q SearchQuery) ([]SearchResult, error) {
	body := map[string]any{
		"query":      q.Text,
		"numResults": max(q.Max, 1),
		"contents":   map[string]any{"text": map[string]any{"maxCharacters": 600}},
	}
	switch q.Category {
	case "code":
		body["category"] = "github"
	case "company":
		body["category"] = "company"
	case "research":
		body["category"] = "research paper"
	}
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url+"/search", bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("x-api-key", e.key)
	raw, err := doSearch(e.client, req)
	if err != nil {
		return nil, err
	}
	var resp struct {
		Results []struct {
			Title string `json:"title"`
			URL   string `json:"url"`
			Text  string `json:"text"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(raw), &resp); err != nil {
		return nil, errorf("exa: unreadable answer: %w", err)
	}
	var out []SearchResult
	for _, r := range resp.Results {
		out = append(out, SearchResult{Title: r.Title, URL: r.URL, Snippet: strings.Join(strings.Fields(r.Text), " ")})
	}
	if len(out) == 0 {
		return nil, errors.New("no results")
	}
	return out, nil
}

// doSearch sends req and returns the body, capped, or an error naming the
// HTTP status. The body of an error is not repeated: it may echo the key.
func doSearch(c *http.Client, req *http.Request) (string, error) {
	resp, err := c.Do(req)
	if err != nil {
		return "", unwrapURLErr(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, fetchMaxBody))
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", errorf("HTTP %s", resp.Status)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD"), nil
}

// WebSearchOptions configures the web_search tool and its aliases. Zero
// durations mean the defaults named on each field.
type WebSearchOptions struct {
	// Backends are tried in order, healthy ones first; empty means
	// DuckDuckGo alone.
	Backends []SearchBackend
	// SearchTimeout budgets web_search; zero means 25s.
	SearchTimeout time.Duration
	// CodeTimeout budgets web_code; zero means 20s.
	CodeTimeout time.Duration
	// CompanyTimeout budgets web_company; zero means 20s.
	CompanyTimeout time.Duration
	// ResearchTimeout budgets web_research; zero means 45s.
	ResearchTimeout time.Duration
	// FinishReserve is kept back from the turn's remaining time for the
	// agent to answer with; zero means 5s.
	FinishReserve time.Duration
	// Cooldown is how long a failing backend is tried last; zero means 2m.
	Cooldown time.Duration
	// Now is the clock for the health map; nil means time.Now.
	Now func() time.Time
}

// backendHealth remembers, per (operation, backend), until when a backend
// that failed is tried last. A success clears the entry.
type backendHealth struct {
	mu       sync.Mutex
	until    map[string]time.Time
	cooldown time.Duration
	now      func() time.Time
}

func (h *backendHealth) key(op, name string) string { return op + "\x00" + name }

func (h *backendHealth) failed(op, name string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.until[h.key(op, name)] = h.now().Add(h.cooldown)
}

func (h *backendHealth) succeeded(op, name string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.until, h.key(op, name))
}

// order returns backends with those cooling down moved to the end, each
// group keeping its configured order. Cooling backends are deprioritised,
// not dropped: when everything else fails they are still tried.
func (h *backendHealth) order(op string, bs []SearchBackend) []SearchBackend {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := h.now()
	var good, cooling []SearchBackend
	for _, b := range bs {
		if u, ok := h.until[h.key(op, b.Name())]; ok && now.Before(u) {
			cooling = append(cooling, b)
		} else {
			good = append(good, b)
		}
	}
	return append(good, cooling...)
}

// webSearch is the shared engine behind web_search and its aliases.
type webSearch struct {
	backends []SearchBackend
	health   *backendHealth
	reserve  time.Duration
}

// webSearchTool is one operation: web_search, web_code, web_company or
// web_research.
type webSearchTool struct {
	name, category, what string
	budget               time.Duration
	s                    *webSearch
}

// RegisterWebSearch registers web_search and its aliases web_code,
// web_company and web_research on reg.
func RegisterWebSearch(reg *Registry, opts *WebSearchOptions) error {
	for _, t := range newWebSearchTools(opts) {
		if err := reg.Register(t); err != nil {
			return err
		}
	}
	return nil
}

// newWebSearchTools returns web_search and its aliases, sharing one
// backend list and one health map.
func newWebSearchTools(opts *WebSearchOptions) []Tool {
	o := WebSearchOptions{}
	if opts != nil {
		o = *opts
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.SearchTimeout, 25*time.Second)
	def(&o.CodeTimeout, 20*time.Second)
	def(&o.CompanyTimeout, 20*time.Second)
	def(&o.ResearchTimeout, 45*time.Second)
	def(&o.FinishReserve, 5*time.Second)
	def(&o.Cooldown, 2*time.Minute)
	if o.Now == nil {
		o.Now = time.Now
	}
	if len(o.Backends) == 0 {
		o.Backends = []SearchBackend{NewDuckDuckGo(nil)}
	}
	s := &webSearch{
		backends: o.Backends,
		health:   &backendHealth{until: map[string]time.Time{}, cooldown: o.Cooldown, now: o.Now},
		reserve:  o.FinishReserve,
	}
	return []Tool{
		&webSearchTool{name: "web_search", what: "the web", budget: o.SearchTimeout, s: s},
		&webSearchTool{name: "web_code", category: "code", what: "code, libraries and programming documentation", budget: o.CodeTimeout, s: s},
		&webSearchTool{name: "web_company", category: "company", what: "information about a company or organisation", budget: o.CompanyTimeout, s: s},
		&webSearchTool{name: "web_research", category: "research", what: "research papers and in-depth sources", budget: o.ResearchTimeout, s: s},
	}
}

func (t *webSearchTool) Name() string { return t.name }

func (t *webSearchTool) Description() string {
	return "Search " + t.what + " and return titles, URLs and snippets. Read a result in full with web_fetch."
}

func (t *webSearchTool) Parameters() json.RawMessage {
	return webSearchSchema.get()
}

type webSearchArgs struct {
	Query *string `json:"query" jsonschema:"What to search for."`
	Max   *int    `json:"max_results,omitempty" jsonschema:"Default 8." schema:"minimum=1,maximum=20"`
}

var webSearchSchema = lazySchema{of: (*webSearchArgs)(nil)}

func (t *webSearchTool) Execute(ctx context.Context, raw json.RawMessage) (string, error) {
	var a webSearchArgs
	if err := decodeArgs(t.name, raw, &a); err != nil {
		return "", err
	}
	if a.Query == nil || strings.TrimSpace(*a.Query) == "" {
		return "", missing(t.name, "query")
	}
	q := SearchQuery{Text: strings.TrimSpace(*a.Query), Max: 8, Category: t.category}
	if a.Max != nil {
		q.Max = min(max(*a.Max, 1), 20)
	}
	return t.s.run(ctx, t, q)
}

// run tries each backend under its own sub-deadline: an even share (among
// the backends not yet tried) of what is left of the operation, which ends
// when its budget is spent or when the turn's deadline minus the finish
// reserve passes, whichever is first. A slow backend can neither eat the
// time the agent needs to reply nor starve the fallback.
func (s *webSearch) run(ctx context.Context, t *webSearchTool, q SearchQuery) (string, error) {
	var failures []string
	order := s.health.order(t.name, s.backends)
	// Deadlines are wall-clock time, as the context's is, whatever clock
	// the health map is given.
	end := time.Now().Add(t.budget)
	if dl, ok := ctx.Deadline(); ok {
		end = minTime(end, dl.Add(-s.reserve))
	}
	for i, b := range order {
		per := time.Until(end) / time.Duration(len(order)-i)
		if per <= 0 {
			failures = append(failures, b.Name()+": skipped, no time left in the turn")
			break
		}
		if i > 0 {
			Note(ctx, "falling back to "+b.Name()+" after "+order[i-1].Name()+" failed")
		}
		cctx, cancel := context.WithTimeout(ctx, per)
		res, err := b.Search(cctx, q)
		cancel()
		if err == nil && len(res) > 0 {
			s.health.succeeded(t.name, b.Name())
			return formatResults(t, b.Name(), q, res, failures), nil
		}
		if err == nil {
			err = errors.New("no results")
		}
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		s.health.failed(t.name, b.Name())
		failures = append(failures, b.Name()+": "+err.Error())
	}
	return "", errorf("%s: every search backend failed: %s", t.name, strings.Join(failures, "; "))
}

func formatResults(t *webSearchTool, backend string, q SearchQuery, res []SearchResult, failures []string) string {
	var b strings.Builder
	degraded := backend == "duckduckgo" && len(failures) > 0
	if degraded {
		who := "the other search backends"
		for _, f := range failures {
			if strings.HasPrefix(f, "exa") {
				who = "Exa"
			}
		}
		fmt.Fprintf(&b, "Degraded/best-effort: results from DuckDuckGo after %s failed: %s.\n\n", who, strings.Join(failures, "; "))
	}
	fmt.Fprintf(&b, "Results for %q (via %s)", q.Text, backend)
	if q.Category != "" && backend == "duckduckgo" {
		b.WriteString(" [degraded/best-effort: a general web search, not a " + q.Category + " search]")
	}
	b.WriteString(":\n")
	for i, r := range res {
		fmt.Fprintf(&b, "\n%d. %s\n", i+1, r.Title)
		if r.URL != "" {
			fmt.Fprintf(&b, "   %s\n", r.URL)
		}
		if r.Snippet != "" {
			fmt.Fprintf(&b, "   %s\n", r.Snippet)
		}
	}
	if len(failures) > 0 && !degraded {
		b.WriteString("\n(fell back after: " + strings.Join(failures, "; ") + ")\n")
	}
	return fence.Wrap(t.name+":"+backend, b.String(), &fence.Options{Origin: "search results from the web"})
}

// searchClient is a search backend's default client, with a 30s timeout.
// For the public default endpoint (endpoint empty) it is guarded by
// package egress, so neither the service's DNS answer nor a redirect can
// lead it to a private address. An endpoint the operator names is their
// choice, possibly a search service on their own network, and is reached
// with a plain client.
func searchClient(endpoint string) *http.Client {
	if endpoint != "" {
		return &http.Client{Timeout: 30 * time.Second}
	}
	return (&egress.Guard{}).Client(30 * time.Second)
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
