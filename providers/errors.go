package providers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// ErrStreamInterrupted is wrapped by the error [Client.ChatStream] returns
// when a stream stops before the provider signalled its end (neither a
// [DONE] marker nor a finish reason arrived), whether the connection closed,
// a read failed or the request timed out. Test for it with errors.Is; the
// partial [Response] returned alongside holds whatever had arrived.
var ErrStreamInterrupted = errors.New("stream ended unexpectedly")

// ErrMalformedStream is wrapped by the error [Client.ChatStream] returns
// when a stream ended (even with [DONE] or a finish reason) without a
// single event it could decode that carried text or a tool call, but with
// events it could not decode, or with no event at all: a garbled answer,
// not an empty one. A [Chain] retries it and then falls back, like a
// network error.
var ErrMalformedStream = errors.New("stream carried no valid event")

// Limits on how much upstream text an error message may carry.
const (
	maxMessageLen = 1000 // a message the provider wrote for humans
	maxSnippetLen = 300  // a guess at an unstructured body
)

// APIError is a failure reported by the provider: a non-2xx HTTP status, or
// an error object inside an otherwise successful body or stream.
type APIError struct {
	// Provider is the client's name, for example "openrouter".
	Provider string
	// StatusCode is the HTTP status. For an error reported inside a 2xx
	// body it is the numeric error code when that is an HTTP error status,
	// otherwise the 2xx status itself.
	StatusCode int
	// Message is the upstream explanation on one line: the message field of
	// a JSON error, the title of an HTML error page, or a short snippet of
	// the body. Empty when the body said nothing useful.
	Message string
	// Type is the OpenAI error type (for example "invalid_request_error");
	// empty if the provider sent none.
	Type string
	// Code is the provider's error code rendered as text, whether it came
	// as a string or a number; empty if the provider sent none.
	Code string
	// RetryAfter is how long the provider asked the caller to wait, from
	// the Retry-After (or retry-after-ms) header; zero if it did not say.
	RetryAfter time.Duration
}

// Error renders the failure on one line, for example
// "openrouter: HTTP 429: Rate limit exceeded".
func (e *APIError) Error() string {
	name := e.Provider
	if name == "" {
		name = "provider"
	}
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.StatusCode)
	}
	if e.StatusCode >= 200 && e.StatusCode <= 299 {
		return name + ": provider error: " + msg
	}
	if msg == "" {
		return fmt.Sprintf("%s: HTTP %d", name, e.StatusCode)
	}
	return fmt.Sprintf("%s: HTTP %d: %s", name, e.StatusCode, msg)
}

// Temporary reports whether retrying the same request later may succeed:
// true for 429 (rate limited) and any 5xx status.
func (e *APIError) Temporary() bool {
	return e.StatusCode == http.StatusTooManyRequests || (e.StatusCode >= 500 && e.StatusCode <= 599)
}

// newAPIError explains a non-2xx response from its (already size-limited)
// body and headers. secrets are the credentials the request carried: a
// provider that quotes the key it refused (a 401 saying "Incorrect API key
// provided: sk-...") must not put it into an error message that is logged
// and printed, so they are removed from the body before anything is built
// from it, and from the result.
func newAPIError(name string, resp *http.Response, body []byte, secrets []string) *APIError {
	body = scrub(body, secrets)
	e := &APIError{
		Provider:   name,
		StatusCode: resp.StatusCode,
		RetryAfter: parseRetryAfter(resp.Header, time.Now()),
	}
	if we, ok := jsonError(body); ok {
		e.Message = scrubString(oneLine(we.Message, maxMessageLen), secrets)
		e.Type, e.Code = scrubString(we.Type, secrets), scrubString(we.Code, secrets)
		return e
	}
	e.Message = scrubString(describeBody(body, resp.Header.Get("Content-Type")), secrets)
	return e
}

// jsonError extracts the message from the error shapes servers use:
// {"error":{"message":...}}, {"error":"..."}, {"message":"..."} and the
// {"detail":"..."} of FastAPI-based servers.
func jsonError(body []byte) (wireError, bool) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 || body[0] != '{' {
		return wireError{}, false
	}
	var v struct {
		Error   *wireError      `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
	}
	if json.Unmarshal(body, &v) != nil {
		return wireError{}, false
	}
	switch {
	case v.Error != nil && v.Error.Message != "":
		return *v.Error, true
	case v.Message != "":
		return wireError{Message: v.Message, Type: v.Type, Code: rawScalar(v.Code)}, true
	case len(v.Detail) > 0 && v.Detail[0] == '"':
		return wireError{Message: rawScalar(v.Detail)}, true
	case len(v.Detail) > 0:
		return wireError{Message: string(v.Detail)}, true
	}
	return wireError{}, false
}

// describeBody makes a short one-line description of a body that is not a
// recognised JSON error, such as a proxy's HTML error page.
func describeBody(body []byte, contentType string) string {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return ""
	}
	if body[0] == '<' || strings.Contains(contentType, "html") {
		if title := htmlTitle(body); title != "" {
			return title
		}
		return snippet(stripTags(body), maxSnippetLen)
	}
	return snippet(body, maxSnippetLen)
}

func htmlTitle(body []byte) string {
	lower := bytes.ToLower(body)
	start := bytes.Index(lower, []byte("<title"))
	if start < 0 {
		return ""
	}
	open := bytes.IndexByte(lower[start:], '>')
	if open < 0 {
		return ""
	}
	start += open + 1
	end := bytes.Index(lower[start:], []byte("</title"))
	if end < 0 {
		return ""
	}
	return oneLine(unescapeHTML(string(body[start:start+end])), maxSnippetLen)
}

// stripTags drops markup, and the contents of script and style elements,
// leaving the visible text.
func stripTags(body []byte) []byte {
	out := make([]byte, 0, len(body)/2)
	lower := bytes.ToLower(body)
	for i := 0; i < len(body); {
		if body[i] != '<' {
			out = append(out, body[i])
			i++
			continue
		}
		for _, skip := range []string{"script", "style"} {
			if bytes.HasPrefix(lower[i+1:], []byte(skip)) {
				if end := bytes.Index(lower[i:], []byte("</"+skip)); end >= 0 {
					i += end
				}
			}
		}
		end := bytes.IndexByte(body[i:], '>')
		if end < 0 {
			break
		}
		i += end + 1
		out = append(out, ' ')
	}
	return []byte(unescapeHTML(string(out)))
}

// snippet is oneLine for raw bytes.
func snippet(b []byte, max int) string {
	if len(b) > 4*max {
		b = b[:4*max]
	}
	return oneLine(string(b), max)
}

// oneLine collapses runs of whitespace and control characters to single
// spaces, trims the ends and caps the result at max runes, marking a cut
// with an ellipsis.
func oneLine(s string, max int) string {
	var b strings.Builder
	b.Grow(min(len(s), 4*max))
	n := 0
	space := false
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsSpace(r) || unicode.IsControl(r) {
			space = b.Len() > 0
			continue
		}
		if n >= max {
			b.WriteString("…")
			return b.String()
		}
		if space {
			b.WriteByte(' ')
			n++
			space = false
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// parseRetryAfter reads how long the server wants the client to back off.
// OpenAI's retry-after-ms is preferred for its precision; Retry-After may be
// delay-seconds or an HTTP date.
func parseRetryAfter(h http.Header, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return capRetry(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if !(secs > 0) { // also rejects NaN
			return 0
		}
		return capRetry(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return capRetry(float64(d))
		}
	}
	return 0
}

// maxRetryAfter keeps an absurd header from overflowing a Duration or
// parking a caller for days.
const maxRetryAfter = 24 * time.Hour

func capRetry(ns float64) time.Duration {
	if ns >= float64(maxRetryAfter) {
		return maxRetryAfter
	}
	return time.Duration(ns)
}

// TransportError is a request that got no usable answer because the
// connection failed, timed out or was cancelled before a response arrived
// or while it was being read: no HTTP status says what the provider
// thought. Test for it with errors.As; Unwrap gives the cause
// (context.DeadlineExceeded when the client's own timeout fired,
// context.Canceled for a caller's cancel, otherwise the network error).
type TransportError struct {
	// Provider is the client's name, for example "openrouter".
	Provider string
	// Op is the API operation: "chat/completions", "embeddings" or
	// "audio/transcriptions"; empty when unknown.
	Op string
	// URL is the endpoint, without user information and query, which can
	// carry credentials.
	URL string
	// Timeout is true when the client's own per-request timeout
	// ([ClientOptions.Timeout]) fired, rather than the caller's context.
	Timeout bool
	// FirstByte is true, with Timeout, when the limit that fired is
	// [ClientOptions.FirstByteTimeout]: the provider never started
	// answering a streamed request.
	FirstByte bool
	// Limit is the client timeout that fired when Timeout is true, so a
	// program can say which of its own settings to raise; zero otherwise.
	Limit time.Duration
	// Err is the cause. A stream that stopped mid-answer has a nil Err:
	// the error wrapping this one also wraps [ErrStreamInterrupted].
	Err error
}

// Error renders the failure on one line, for example
// "openrouter: request failed: https://openrouter.ai/api/v1/chat/completions: dial tcp: lookup openrouter.ai: no such host".
func (e *TransportError) Error() string {
	name := e.Provider
	if name == "" {
		name = "provider"
	}
	if e.FirstByte {
		return fmt.Sprintf("%s: request failed: no answer began within %s (the provider accepted the request and went silent; raise ClientOptions.FirstByteTimeout if the model needs longer to start): %v", name, e.Limit, context.DeadlineExceeded)
	}
	if e.Timeout {
		return fmt.Sprintf("%s: request failed: timed out after %s (raise ClientOptions.Timeout if the model needs longer): %v", name, e.Limit, context.DeadlineExceeded)
	}
	if e.Err == nil {
		return name + ": request failed"
	}
	if e.URL == "" {
		return name + ": request failed: " + e.Err.Error()
	}
	return name + ": request failed: " + e.URL + ": " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *TransportError) Unwrap() error { return e.Err }

// redactURL renders u without user information, query or fragment.
func redactURL(u *url.URL) string {
	if u == nil {
		return ""
	}
	c := *u
	c.User, c.RawQuery, c.ForceQuery, c.Fragment, c.RawFragment = nil, "", false, "", ""
	return c.String()
}

// opOf names the API operation u addresses, from the end of its path.
func opOf(u *url.URL) string {
	if u == nil {
		return ""
	}
	for _, op := range []string{"chat/completions", "audio/transcriptions", "embeddings"} {
		if strings.HasSuffix(strings.TrimSuffix(u.Path, "/"), op) {
			return op
		}
	}
	return ""
}
