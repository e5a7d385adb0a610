package providers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// DefaultTimeout is the per-request timeout used when
// [ClientOptions.Timeout] is zero.
const DefaultTimeout = 120 * time.Second

const (
	// maxErrorBody bounds how much of a non-2xx body is read to explain it.
	maxErrorBody = 64 << 10
	// maxResponseBody bounds a non-streamed answer, and the text a stream may
	// accumulate, so a misbehaving server cannot exhaust memory.
	maxResponseBody = 32 << 20
	// maxLineLength bounds one server-sent event line.
	maxLineLength = 4 << 20
)

// ClientOptions configures [NewClient]. Only BaseURL is required.
type ClientOptions struct {
	// Name identifies the provider in error messages and logs, for example
	// "openrouter". Empty means "provider".
	Name string
	// BaseURL is the API root that chat/completions hangs off, for example
	// "https://openrouter.ai/api/v1" or "http://localhost:11434/v1". It must
	// be an absolute http or https URL; a trailing slash is ignored and a
	// query string (such as Azure's api-version) is kept.
	BaseURL string
	// APIKey is sent as "Authorization: Bearer <key>". Empty sends no
	// Authorization header, which keyless servers such as Ollama expect.
	APIKey string
	// Timeout bounds each request from sending it until the last byte of the
	// answer (including the whole stream) is read. Zero means
	// [DefaultTimeout]; negative is rejected.
	Timeout time.Duration
	// HTTPClient sends the requests. Nil means a private client with its own
	// connection pool. The client's own Timeout, if any, still applies on
	// top of the per-request Timeout above.
	HTTPClient *http.Client
	// Headers are extra headers sent with every request. They are applied
	// last, so they may replace the defaults, including Authorization (for
	// providers that authenticate with a different header). Nil means none.
	Headers map[string]string
}

// Client talks to one OpenAI-compatible chat-completions endpoint. It is safe
// for concurrent use. Create it with [NewClient]; the zero value is unusable.
type Client struct {
	name     string
	endpoint string
	apiKey   string
	timeout  time.Duration
	http     *http.Client
	headers  http.Header

	// Limits live on the client rather than in package variables so tests
	// can shrink them without racing each other.
	maxBody int
	maxLine int
}

var _ Provider = (*Client)(nil)

// NewClient checks opts and returns a client for the endpoint it describes.
func NewClient(opts *ClientOptions) (*Client, error) {
	if opts == nil {
		return nil, errors.New("providers: NewClient needs non-nil ClientOptions")
	}
	name := opts.Name
	if name == "" {
		name = "provider"
	}
	endpoint, err := chatEndpoint(opts.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("%s: ClientOptions.BaseURL: %w", name, err)
	}
	if opts.Timeout < 0 {
		return nil, fmt.Errorf("%s: ClientOptions.Timeout is negative (%s); use 0 for the %s default", name, opts.Timeout, DefaultTimeout)
	}
	timeout := opts.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	hc := opts.HTTPClient
	if hc == nil {
		hc = &http.Client{Transport: newTransport()}
	}
	headers := make(http.Header, len(opts.Headers))
	for k, v := range opts.Headers {
		headers.Set(k, v)
	}
	return &Client{
		name:     name,
		endpoint: endpoint,
		apiKey:   opts.APIKey,
		timeout:  timeout,
		http:     hc,
		headers:  headers,
		maxBody:  maxResponseBody,
		maxLine:  maxLineLength,
	}, nil
}

func chatEndpoint(base string) (string, error) {
	base = strings.TrimSpace(base)
	if base == "" {
		return "", errors.New("empty; set it to the API root, for example https://openrouter.ai/api/v1")
	}
	u, err := url.Parse(base)
	if err != nil {
		return "", fmt.Errorf("cannot parse %q: %w", base, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("%q must start with http:// or https://", base)
	}
	if u.Host == "" {
		return "", fmt.Errorf("%q has no host", base)
	}
	u.Fragment = ""
	u.RawFragment = ""
	return u.JoinPath("chat", "completions").String(), nil
}

// newTransport clones the default transport so the client's pool is not
// shared with (or mutated by) the rest of the program, and keeps more idle
// connections per host because an agent talks to one host most of the time.
func newTransport() http.RoundTripper {
	def, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		return http.DefaultTransport
	}
	t := def.Clone()
	t.MaxIdleConnsPerHost = 16
	t.DialContext = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	return t
}

// Name returns the provider name used in errors ("provider" when
// [ClientOptions.Name] was empty).
func (c *Client) Name() string { return c.name }

// errClientTimeout marks a deadline set by the client itself, so errors can
// tell it apart from a deadline the caller's context carried.
var errClientTimeout = errors.New("client timeout")

// Chat sends req and returns the whole answer.
func (c *Client) Chat(ctx context.Context, req *Request) (*Response, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, c.timeout, errClientTimeout)
	defer cancel()

	resp, err := c.send(ctx, req, false)
	if err != nil {
		return nil, err
	}
	defer closeBody(resp.Body)

	body, err := c.readBody(ctx, resp)
	if err != nil {
		return nil, err
	}
	return c.decodeCompletion(body, resp.StatusCode)
}

// ChatStream sends req with streaming on, passes each text increment to
// onDelta (which may be nil) as it arrives, and returns the assembled answer.
//
// If the stream breaks off after it started, ChatStream returns the partial
// answer together with an error: one wrapping [ErrStreamInterrupted] when the
// stream simply stopped, or an [*APIError] when the provider reported an
// error inside the stream. The partial Response tells the caller whether text
// was already delivered through onDelta.
//
// A server that ignores the stream flag and answers with plain JSON is
// accepted: its text is delivered as a single delta.
func (c *Client) ChatStream(ctx context.Context, req *Request, onDelta func(Delta)) (*Response, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, c.timeout, errClientTimeout)
	defer cancel()

	resp, err := c.send(ctx, req, true)
	if err != nil {
		return nil, err
	}
	defer closeBody(resp.Body)

	if isJSON(resp.Header.Get("Content-Type")) {
		body, err := c.readBody(ctx, resp)
		if err != nil {
			return nil, err
		}
		out, err := c.decodeCompletion(body, resp.StatusCode)
		if err != nil {
			return nil, err
		}
		if onDelta != nil && out.Message.Content != "" {
			onDelta(Delta{Content: out.Message.Content})
		}
		return out, nil
	}

	d := newStreamDecoder(c.name, resp.Body, onDelta, c.maxLine, c.maxBody)
	defer d.release()
	out, err := d.decode(resp.StatusCode)
	if err != nil && ctx.Err() != nil {
		err = c.streamContextError(ctx, d)
	}
	return out, err
}

// send marshals req, posts it and returns the response if its status is 2xx.
// Any other status is turned into an [*APIError] here.
func (c *Client) send(ctx context.Context, req *Request, stream bool) (*http.Response, error) {
	if req == nil {
		return nil, fmt.Errorf("%s: nil Request", c.name)
	}
	body, err := marshalRequest(req, stream)
	if err != nil {
		return nil, fmt.Errorf("%s: encode request: %w", c.name, err)
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%s: build request: %w", c.name, err)
	}
	h := hreq.Header
	h.Set("Content-Type", "application/json")
	if stream {
		h.Set("Accept", "text/event-stream")
	} else {
		h.Set("Accept", "application/json")
	}
	h.Set("User-Agent", "joshbot-providers")
	if c.apiKey != "" {
		h.Set("Authorization", "Bearer "+c.apiKey)
	}
	for k, v := range c.headers {
		h[k] = v
	}

	resp, err := c.http.Do(hreq)
	if err != nil {
		return nil, c.transportError(ctx, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer closeBody(resp.Body)
		data, rerr := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		if rerr != nil && len(data) == 0 && ctx.Err() != nil {
			return nil, c.transportError(ctx, rerr)
		}
		return nil, newAPIError(c.name, resp, data)
	}
	return resp, nil
}

// readBody reads a success body, refusing one larger than the client's
// limit instead of buffering it.
func (c *Client) readBody(ctx context.Context, resp *http.Response) ([]byte, error) {
	limit := int64(c.maxBody)
	if resp.ContentLength > limit {
		return nil, fmt.Errorf("%s: response body of %d bytes exceeds the %s limit", c.name, resp.ContentLength, byteSize(limit))
	}
	var buf bytes.Buffer
	if resp.ContentLength > 0 {
		buf.Grow(int(resp.ContentLength) + 1)
	}
	n, err := buf.ReadFrom(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		if ctx.Err() != nil {
			return nil, c.transportError(ctx, err)
		}
		return nil, fmt.Errorf("%s: read response: %w", c.name, err)
	}
	if n > limit {
		return nil, fmt.Errorf("%s: response body exceeds the %s limit", c.name, byteSize(limit))
	}
	return buf.Bytes(), nil
}

// transportError words a failure to get or read a response, naming the
// timeout when it was the client's own deadline that fired.
func (c *Client) transportError(ctx context.Context, err error) error {
	if context.Cause(ctx) == errClientTimeout {
		return fmt.Errorf("%s: request failed: timed out after %s (raise ClientOptions.Timeout if the model needs longer): %w",
			c.name, c.timeout, context.DeadlineExceeded)
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("%s: request failed: %w", c.name, ctxErr)
	}
	return fmt.Errorf("%s: request failed: %w", c.name, err)
}

func (c *Client) streamContextError(ctx context.Context, d *streamDecoder) error {
	return fmt.Errorf("%w (%w after %s)", c.transportError(ctx, nil), ErrStreamInterrupted, d.progress())
}

func closeBody(body io.ReadCloser) {
	// Draining a little lets the transport reuse the connection; more than
	// that is not worth the wait.
	_, _ = io.CopyN(io.Discard, body, 4<<10)
	_ = body.Close()
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
