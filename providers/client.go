package providers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
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

// DefaultFirstByteTimeout is how long a streamed request waits for the
// provider to start answering when [ClientOptions.FirstByteTimeout] is
// zero. It is generous enough for a local model that must first load or
// read a long prompt, and short enough that a provider which accepted the
// connection and went silent is given up on (and a [Chain] falls back)
// well before the request's whole [DefaultTimeout].
const DefaultFirstByteTimeout = 60 * time.Second

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
	// FirstByteTimeout bounds the wait for a streamed request's answer to
	// begin: for the response headers and then for the first stream
	// event. It ends there; the rest of the stream is bounded by Timeout
	// only. On expiry the request fails with a [*TransportError] whose
	// Timeout and FirstByte are set, which a [Chain] moves on from at once
	// rather than retrying in place. It does not apply to [Client.Chat]:
	// a non-streamed answer's headers come only when the whole answer is
	// written. Zero means [DefaultFirstByteTimeout]; negative turns the
	// limit off. A value at or above Timeout never fires first.
	FirstByteTimeout time.Duration
	// HTTPClient sends the requests. Nil means a private client with its own
	// connection pool. The client's own Timeout, if any, still applies on
	// top of the per-request Timeout above. The Client uses a copy whose
	// redirects drop Authorization and API-key headers when the scheme,
	// host or port changes, before the client's own CheckRedirect runs.
	HTTPClient *http.Client
	// Headers are extra headers sent with every request. They are applied
	// last, so they may replace the defaults, including Authorization (for
	// providers that authenticate with a different header). Nil means none.
	Headers map[string]string
	// AuthHeader, when set, carries APIKey as is under this header name
	// instead of "Authorization: Bearer" (Azure's "api-key"). Empty means
	// the bearer form.
	AuthHeader string
	// Style is the URL layout of the endpoint; the zero value is the
	// OpenAI layout. With [StyleAzure] the request's model names the
	// deployment, and an api-version is added when BaseURL has none.
	Style URLStyle
	// ExtraBody holds provider-specific top-level fields merged into every
	// request body, under those of [Request.ExtraBody]. Nil means none.
	ExtraBody map[string]any
	// Credential, when set, supplies the bearer credential for each request
	// instead of APIKey, for providers whose keys are short-lived tokens
	// minted from a longer-lived one (see [CopilotTokens]). An error fails
	// the request before anything is sent. Nil means APIKey.
	Credential func(ctx context.Context) (string, error)
}

// Client talks to one OpenAI-compatible chat-completions endpoint. It is safe
// for concurrent use. Create it with [NewClient]; the zero value is unusable.
type Client struct {
	name     string
	endpoint string
	apiKey   string
	timeout  time.Duration
	// firstByte is the first-byte limit of streamed requests; zero means
	// none.
	firstByte time.Duration
	http      *http.Client
	headers   http.Header
	authHdr   string
	cred      func(context.Context) (string, error)
	base      *url.URL
	style     URLStyle
	extra     map[string]any

	// Limits live on the client rather than in package variables so tests
	// can shrink them without racing each other.
	maxBody int
	maxLine int

	// tools keeps the encoded tool sets this client sent recently.
	tools *toolCache
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
	base, err := parseBase(opts.BaseURL)
	if err != nil {
		return nil, errorf("%s: ClientOptions.BaseURL: %w", name, err)
	}
	if opts.Timeout < 0 {
		return nil, errorf("%s: ClientOptions.Timeout is negative (%s); use 0 for the %s default", name, opts.Timeout, DefaultTimeout)
	}
	timeout := opts.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	firstByte := opts.FirstByteTimeout
	switch {
	case firstByte == 0:
		firstByte = DefaultFirstByteTimeout
	case firstByte < 0:
		firstByte = 0
	}
	hc := opts.HTTPClient
	if hc == nil {
		hc = &http.Client{Transport: newTransport()}
	}
	hc = withCredentialRedirects(hc)
	headers := make(http.Header, len(opts.Headers))
	for k, v := range opts.Headers {
		headers.Set(k, v)
	}
	if opts.Style == StyleAzure && base.Query().Get("api-version") == "" {
		q := base.Query()
		q.Set("api-version", DefaultAzureAPIVersion)
		base.RawQuery = q.Encode()
	}
	return &Client{
		name:      name,
		endpoint:  base.JoinPath("chat", "completions").String(),
		apiKey:    opts.APIKey,
		timeout:   timeout,
		firstByte: firstByte,
		http:      hc,
		headers:   headers,
		authHdr:   opts.AuthHeader,
		cred:      opts.Credential,
		base:      base,
		style:     opts.Style,
		extra:     opts.ExtraBody,
		maxBody:   maxResponseBody,
		maxLine:   maxLineLength,
		tools:     &toolCache{},
	}, nil
}

// endpointFor returns the URL of the operation op ("chat/completions",
// "embeddings", "audio/transcriptions") for model.
func (c *Client) endpointFor(model, op string) string {
	if c.style == StyleAzure {
		// A base that already names a deployment is used as is.
		if strings.Contains(c.base.Path, "/deployments/") {
			return c.base.JoinPath(strings.Split(op, "/")...).String()
		}
		parts := append([]string{"openai", "deployments", model}, strings.Split(op, "/")...)
		return c.base.JoinPath(parts...).String()
	}
	if op == "chat/completions" {
		return c.endpoint
	}
	return c.base.JoinPath(strings.Split(op, "/")...).String()
}

// setAuth puts the credential on h in the provider's form.
func (c *Client) setAuth(ctx context.Context, h http.Header) error {
	if c.cred != nil {
		tok, err := c.cred(ctx)
		if err != nil {
			return errorf("%s: credential: %w", c.name, err)
		}
		h.Set("Authorization", "Bearer "+tok)
		return nil
	}
	if c.apiKey == "" {
		return nil
	}
	if c.authHdr != "" {
		h.Set(c.authHdr, c.apiKey)
		return nil
	}
	h.Set("Authorization", "Bearer "+c.apiKey)
	return nil
}

func parseBase(base string) (*url.URL, error) {
	base = strings.TrimSpace(base)
	if base == "" {
		return nil, errors.New("empty; set it to the API root, for example https://openrouter.ai/api/v1")
	}
	u, err := url.Parse(base)
	if err != nil {
		return nil, errorf("cannot parse %q: %w", base, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, errorf("%q must start with http:// or https://", base)
	}
	if u.Host == "" {
		return nil, errorf("%q has no host", base)
	}
	u.Fragment = ""
	u.RawFragment = ""
	return u, nil
}

// newTransport clones the default transport so the client's pool is not
// shared with (or mutated by) the rest of the program, and keeps more idle
// connections per host because an agent talks to one host most of the time:
// as many as a served API runs turns at once (dozens), or every request
// past the pool's size dials a new connection and closes it after. Its
// write buffer holds a whole request of a fresh conversation (system
// prompt and tool definitions come to some 20 KiB): with the default
// 4 KiB one every request left in two writes, and the provider was woken
// for a first piece it could not act on. A buffer's pages are touched
// only as far as requests fill them.
func newTransport() http.RoundTripper {
	def, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		return http.DefaultTransport
	}
	t := def.Clone()
	t.MaxIdleConnsPerHost = 128
	t.WriteBufferSize = 64 << 10
	t.DialContext = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	return t
}

// Name returns the provider name used in errors ("provider" when
// [ClientOptions.Name] was empty).
func (c *Client) Name() string { return c.name }

// errBadRequest marks a request that could not be built, and errTooLarge
// an answer over the size limits. Neither is helped by asking again, so a
// [Chain] moves on at once instead of retrying.
var (
	errBadRequest = errors.New("request not sent")
	errTooLarge   = errors.New("answer too large")
)

// marked is an error tagged with a class for errors.Is, without the class
// showing in its text.
type marked struct{ err, class error }

func (e *marked) Error() string   { return e.err.Error() }
func (e *marked) Unwrap() []error { return []error{e.err, e.class} }

func mark(class, err error) error { return &marked{err: err, class: class} }

// errClientTimeout marks a deadline set by the client itself, so errors can
// tell it apart from a deadline the caller's context carried.
var errClientTimeout = errors.New("client timeout")

// errFirstByte is the cancel cause of a streamed request whose answer did
// not begin within the client's first-byte limit.
var errFirstByte = errors.New("first byte timeout")

// watchFirstByte returns a context that is cancelled when started is not
// called within the client's first-byte limit, and a function that
// releases it; ctx itself when there is no limit.
func (c *Client) watchFirstByte(ctx context.Context) (_ context.Context, started, release func()) {
	if c.firstByte <= 0 {
		return ctx, func() {}, func() {}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	t := time.AfterFunc(c.firstByte, func() { cancel(errFirstByte) })
	return ctx, func() { t.Stop() }, func() { t.Stop(); cancel(nil) }
}

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
	ctx, started, release := c.watchFirstByte(ctx)
	defer release()

	resp, err := c.send(ctx, req, true)
	if err != nil {
		return nil, err
	}
	defer closeBody(resp.Body)

	if isJSON(resp.Header.Get("Content-Type")) {
		started()
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
	d.started = started
	defer d.release()
	out, err := d.decode(resp.StatusCode)
	if err != nil && ctx.Err() != nil {
		err = c.streamContextError(ctx, resp.Request, d)
	}
	return out, err
}

// send marshals req, posts it and returns the response if its status is 2xx.
// Any other status is turned into an [*APIError] here.
func (c *Client) send(ctx context.Context, req *Request, stream bool) (*http.Response, error) {
	if req == nil {
		return nil, mark(errBadRequest, errorf("%s: nil Request", c.name))
	}
	if _, err := screen(req, []string{req.Model}, []string{req.Model}, ""); err != nil {
		return nil, mark(errBadRequest, errorf("%s: %w", c.name, err))
	}
	if len(c.extra) > 0 {
		r := *req
		r.ExtraBody = make(map[string]any, len(c.extra)+len(req.ExtraBody))
		maps.Copy(r.ExtraBody, c.extra)
		maps.Copy(r.ExtraBody, req.ExtraBody)
		req = &r
	}
	body, err := c.tools.marshal(req, stream)
	if err != nil {
		return nil, mark(errBadRequest, errorf("%s: encode request: %w", c.name, err))
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpointFor(req.Model, "chat/completions"), bytes.NewReader(body))
	if err != nil {
		return nil, errorf("%s: build request: %w", c.name, err)
	}
	h := hreq.Header
	h.Set("Content-Type", "application/json")
	if stream {
		h.Set("Accept", "text/event-stream")
	} else {
		h.Set("Accept", "application/json")
	}
	h.Set("User-Agent", "joshbot-providers")
	if err := c.setAuth(ctx, h); err != nil {
		return nil, err
	}
	for k, v := range c.headers {
		h[k] = v
	}

	resp, err := c.http.Do(hreq)
	if err != nil {
		return nil, c.transportError(ctx, hreq, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer closeBody(resp.Body)
		data, rerr := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		if rerr != nil && len(data) == 0 && ctx.Err() != nil {
			return nil, c.transportError(ctx, hreq, rerr)
		}
		return nil, newAPIError(c.name, resp, data, credentials(hreq.Header))
	}
	return resp, nil
}

// readBody reads a success body, refusing one larger than the client's
// limit instead of buffering it.
func (c *Client) readBody(ctx context.Context, resp *http.Response) ([]byte, error) {
	limit := int64(c.maxBody)
	if resp.ContentLength > limit {
		return nil, mark(errTooLarge, errorf("%s: response body of %d bytes exceeds the %s limit", c.name, resp.ContentLength, byteSize(limit)))
	}
	var buf bytes.Buffer
	if resp.ContentLength > 0 {
		buf.Grow(int(resp.ContentLength) + 1)
	}
	n, err := buf.ReadFrom(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		if ctx.Err() != nil {
			return nil, c.transportError(ctx, resp.Request, err)
		}
		return nil, errorf("%s: read response: %w", c.name, err)
	}
	if n > limit {
		return nil, mark(errTooLarge, errorf("%s: response body exceeds the %s limit", c.name, byteSize(limit)))
	}
	return buf.Bytes(), nil
}

// transportError words a failure to get or read a response to hreq as a
// [*TransportError], noting the timeout when it was the client's own
// deadline that fired.
func (c *Client) transportError(ctx context.Context, hreq *http.Request, err error) error {
	te := &TransportError{Provider: c.name, Err: err}
	if hreq != nil {
		te.URL = redactURL(hreq.URL)
		te.Op = opOf(hreq.URL)
	}
	var uerr *url.Error
	if errors.As(err, &uerr) {
		// The URL is in the TransportError already, without its secrets.
		te.Err = uerr.Err
	}
	switch cause := context.Cause(ctx); {
	case cause == errClientTimeout:
		te.Timeout, te.Limit, te.Err = true, c.timeout, context.DeadlineExceeded
	case cause == errFirstByte:
		te.Timeout, te.FirstByte, te.Limit, te.Err = true, true, c.firstByte, context.DeadlineExceeded
	default:
		if ctxErr := ctx.Err(); ctxErr != nil {
			te.Err = ctxErr
		}
	}
	return te
}

func (c *Client) streamContextError(ctx context.Context, hreq *http.Request, d *streamDecoder) error {
	return errorf("%w (%w after %s)", c.transportError(ctx, hreq, nil), ErrStreamInterrupted, d.progress())
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
