package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/joshbot/joshbot/sandbox/egress"
	"github.com/joshbot/joshbot/sandbox/fence"
)

// Limits of web_fetch.
const (
	fetchMaxBody      = 2 << 20 // bytes read from the network
	fetchMaxText      = 100_000 // characters handed to the model
	fetchMaxRedirects = 5
	fetchTimeout      = 30 * time.Second
)

// WebFetchOptions configures web_fetch. A nil *WebFetchOptions means the
// defaults.
type WebFetchOptions struct {
	// Resolver looks up host names, both for the up-front check and at
	// dial time. Nil means net.DefaultResolver.
	Resolver Resolver
	// UserAgent is sent with every request; empty means "joshbot".
	UserAgent string
	// Timeout bounds one fetch including redirects; zero means 30s.
	Timeout time.Duration
}

// WebFetch is the web_fetch tool: it fetches an http(s) URL on the public
// Internet and returns its text. It is safe for concurrent use.
type WebFetch struct {
	guard   *egress.Guard
	client  *http.Client
	agent   string
	timeout time.Duration
}

var _ Tool = (*WebFetch)(nil)

// NewWebFetch returns the web_fetch tool.
func NewWebFetch(opts *WebFetchOptions) *WebFetch {
	if opts == nil {
		opts = &WebFetchOptions{}
	}
	w := &WebFetch{guard: &egress.Guard{Resolver: opts.Resolver, MaxRedirects: fetchMaxRedirects}, agent: opts.UserAgent, timeout: opts.Timeout}
	if w.agent == "" {
		w.agent = "joshbot"
	}
	if w.timeout <= 0 {
		w.timeout = fetchTimeout
	}
	tr := w.guard.Transport()
	tr.ResponseHeaderTimeout = 20 * time.Second
	w.client = &http.Client{Transport: tr, CheckRedirect: w.guard.CheckRedirect}
	return w
}

// Name implements [Tool].
func (w *WebFetch) Name() string { return "web_fetch" }

// Description implements [Tool].
func (w *WebFetch) Description() string {
	return "Fetch a public http or https URL and return its text (HTML is reduced to text). " +
		fmt.Sprintf("At most %d MiB is downloaded and %d characters returned. ", fetchMaxBody>>20, fetchMaxText) +
		"Addresses on this machine, private networks and cloud metadata services are refused."
}

// Parameters implements [Tool].
func (w *WebFetch) Parameters() json.RawMessage {
	return webFetchSchema.get()
}

type webFetchArgs struct {
	URL *string `json:"url" jsonschema:"The http or https URL to fetch."`
}

var webFetchSchema = lazySchema{of: (*webFetchArgs)(nil)}

// Execute implements [Tool].
func (w *WebFetch) Execute(ctx context.Context, raw json.RawMessage) (string, error) {
	const name = "web_fetch"
	var a webFetchArgs
	if err := decodeArgs(name, raw, &a); err != nil {
		return "", err
	}
	if a.URL == nil || strings.TrimSpace(*a.URL) == "" {
		return "", missing(name, "url")
	}
	u, err := url.Parse(strings.TrimSpace(*a.URL))
	if err != nil {
		return "", errorf("%s: %q is not a valid URL: %v", name, *a.URL, unwrapURLErr(err))
	}
	if err := w.guard.CheckURL(ctx, u); err != nil {
		return "", errorf("%s: %s refused: %w", name, u.Redacted(), err)
	}
	ctx, cancel := context.WithTimeout(ctx, w.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", errorf("%s: %w", name, err)
	}
	req.Header.Set("User-Agent", w.agent)
	req.Header.Set("Accept", "text/html, text/plain, application/json, */*;q=0.5")
	resp, err := w.client.Do(req)
	if err != nil {
		return "", errorf("%s: %s: %v", name, u.Redacted(), unwrapURLErr(err))
	}
	defer resp.Body.Close()
	Note(ctx, fmt.Sprintf("%s answered %s; reading the page", resp.Request.URL.Host, resp.Status))
	body, err := io.ReadAll(io.LimitReader(resp.Body, fetchMaxBody+1))
	if err != nil {
		return "", errorf("%s: reading %s: %w", name, u.Redacted(), err)
	}
	truncated := len(body) > fetchMaxBody
	if truncated {
		body = body[:fetchMaxBody]
	}
	text := bodyText(resp.Header.Get("Content-Type"), body)
	if utf8.RuneCountInString(text) > fetchMaxText {
		text = string([]rune(text)[:fetchMaxText])
		truncated = true
	}
	var b strings.Builder
	fmt.Fprintf(&b, "URL: %s\nStatus: %s\n", resp.Request.URL.Redacted(), resp.Status)
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		fmt.Fprintf(&b, "Content-Type: %s\n", ct)
	}
	b.WriteString("\n")
	b.WriteString(text)
	if truncated {
		b.WriteString("\n…[content truncated]")
	}
	return fence.Wrap(name+":"+resp.Request.URL.Redacted(), b.String(), &fence.Options{Origin: "a web page"}), nil
}

func unwrapURLErr(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

var (
	reScriptStyle = &lazyRegexp{expr: `(?is)<(script|style|noscript|template)\b.*?</(script|style|noscript|template)\s*>`}
	reComment     = &lazyRegexp{expr: `(?s)<!--.*?-->`}
	reBlockTag    = &lazyRegexp{expr: `(?i)</?(p|div|br|li|tr|h[1-6]|section|article|header|footer|pre|blockquote|table|ul|ol)\b[^>]*>`}
	reTag         = &lazyRegexp{expr: `(?s)<[^>]*>`}
	reSpaces      = &lazyRegexp{expr: `[ \t\f\v]+`}
	reBlankLines  = &lazyRegexp{expr: `\n\s*\n+`}
)

// bodyText turns a response body into valid UTF-8 text, reducing HTML to
// its readable text.
func bodyText(contentType string, body []byte) string {
	s := strings.ToValidUTF8(string(body), "\uFFFD")
	mt, _, _ := mime.ParseMediaType(contentType)
	if mt == "text/html" || mt == "application/xhtml+xml" || (mt == "" && looksHTML(s)) {
		s = htmlText(s)
	}
	return s
}

func looksHTML(s string) bool {
	head := strings.ToLower(s[:min(len(s), 512)])
	return strings.Contains(head, "<html") || strings.Contains(head, "<!doctype html")
}

func htmlText(s string) string {
	s = reScriptStyle.get().ReplaceAllString(s, " ")
	s = reComment.get().ReplaceAllString(s, " ")
	s = reBlockTag.get().ReplaceAllString(s, "\n")
	s = reTag.get().ReplaceAllString(s, "")
	s = unescapeHTML(s)
	s = reSpaces.get().ReplaceAllString(s, " ")
	s = reBlankLines.get().ReplaceAllString(s, "\n\n")
	return strings.ToValidUTF8(strings.TrimSpace(s), "\uFFFD")
}

// ErrBlockedAddress marks a URL or connection refused because it leads to
// a loopback, private, link-local or otherwise non-public address. It is
// [egress.ErrNonPublicAddress], the sentinel of the one outbound address
// guard, so errors.Is matches either name.
var ErrBlockedAddress error = egress.NonPublicAddressError{}

// Resolver looks up a host's addresses; it is [egress.Resolver].
// *net.Resolver implements it.
type Resolver = egress.Resolver
