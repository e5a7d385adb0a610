package providers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"
)

// Retry budget and waits of a [Chain].
const (
	// DefaultMaxRetries is the usual same-provider retry budget; configs
	// that say nothing get it.
	DefaultMaxRetries = 2
	// MaxRetriesLimit is the largest retry budget a [Candidate] may have.
	MaxRetriesLimit = 10
	// MaxRetryWait is the longest Retry-After a chain waits out. A
	// provider asking for more goes into a cooldown of that length and the
	// chain moves on at once: a turn should not stall that long.
	MaxRetryWait = 20 * time.Second

	baseBackoff = 500 * time.Millisecond
	maxBackoff  = 8 * time.Second
)

// ErrAllFailed is wrapped by the error a [Chain] returns when no candidate
// answered. The error also wraps each candidate's own failure, so
// errors.As finds an [*APIError] among them.
var ErrAllFailed = errors.New("no configured model answered")

// Candidate is one model a [Chain] may ask.
type Candidate struct {
	// Provider names the provider, for notices, errors and [Health].
	Provider string
	// Model is the wire model id sent to it.
	Model string
	// Client sends the requests; a [*Client] in production.
	Client Provider
	// MaxRetries is how many times a transient failure (429, 5xx, a
	// network error) is retried in place before the chain moves on: 0 to
	// [MaxRetriesLimit]. Zero fails over at once.
	MaxRetries int
}

// ChainOptions configures [NewChain]. Candidates is required.
type ChainOptions struct {
	// Candidates are tried primary first, then the fallbacks in order
	// (providers cooling down after a failure go last).
	Candidates []Candidate
	// Health is the failure table to consult and update; nil means a
	// table private to this chain.
	Health *Health
	// Sleep waits d or until ctx ends; nil means a real timer. Tests
	// inject one that records the waits.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock for a private Health; nil means time.Now.
	Now func() time.Time
	// Jitter returns a number in [0, 1) that spreads backoff waits; nil
	// means math/rand.
	Jitter func() float64
	// Logger receives a line per retry and fallback; nil means
	// slog.Default().
	Logger *slog.Logger
	// ModelKey is the setting an operator changes to pick another model
	// (for example "models_config.agent.model"), named when no candidate
	// can read a message's attachments. Empty means a generic hint.
	ModelKey string
}

// Chain asks a list of candidate models in turn: it retries a transient
// failure in place with jittered exponential backoff (honouring
// Retry-After), then falls over to the next candidate, and reports in
// [Response.FallbackNotice] when someone other than the primary answered.
// It implements [Provider] and is safe for concurrent use.
type Chain struct {
	cands  []Candidate
	health *Health
	sleep  func(context.Context, time.Duration) error
	jitter func() float64
	log    *slog.Logger
	key    string
}

var _ Provider = (*Chain)(nil)

// NewChain checks opts and returns a chain.
func NewChain(opts *ChainOptions) (*Chain, error) {
	if opts == nil || len(opts.Candidates) == 0 {
		return nil, errors.New("providers: NewChain needs at least one candidate")
	}
	for i, c := range opts.Candidates {
		if c.Client == nil {
			return nil, errorf("providers: candidate %d (%s) has no Client", i+1, c.Provider)
		}
		if c.MaxRetries < 0 || c.MaxRetries > MaxRetriesLimit {
			return nil, errorf("providers: candidate %d (%s) has MaxRetries %d; use 0 to %d", i+1, c.Provider, c.MaxRetries, MaxRetriesLimit)
		}
	}
	c := &Chain{
		cands:  append([]Candidate(nil), opts.Candidates...),
		health: opts.Health,
		sleep:  opts.Sleep,
		jitter: opts.Jitter,
		log:    opts.Logger,
		key:    opts.ModelKey,
	}
	if c.health == nil {
		c.health = NewHealth(opts.Now)
	}
	if c.sleep == nil {
		c.sleep = sleepTimer
	}
	if c.jitter == nil {
		c.jitter = rand.Float64
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	return c, nil
}

// Health returns the table the chain consults, for status displays.
func (c *Chain) Health() *Health { return c.health }

func sleepTimer(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// Chat asks the candidates in turn until one answers. A non-empty
// req.Model replaces the primary candidate's model (a conversation's own
// /model choice); every fallback sends its own Model.
func (c *Chain) Chat(ctx context.Context, req *Request) (*Response, error) {
	return c.run(ctx, req, nil, false)
}

// ChatStream streams the answer of the first candidate to try. A stream
// that fails before any text arrived is invisible to the reader, so the
// request continues through the non-streaming path with the rest of the
// retry budget and the fallbacks; their answer reaches onDelta in one
// piece, preceded by a [Delta] carrying the fallback notice when there is
// one. A stream that fails after text was delivered is not retried (the
// text cannot be taken back): the partial answer is returned with an error
// wrapping [ErrStreamInterrupted] or the provider's [*APIError].
func (c *Chain) ChatStream(ctx context.Context, req *Request, onDelta func(Delta)) (*Response, error) {
	if onDelta == nil {
		onDelta = func(Delta) {}
	}
	return c.run(ctx, req, onDelta, true)
}

func (c *Chain) run(ctx context.Context, req *Request, onDelta func(Delta), stream bool) (*Response, error) {
	if req == nil {
		return nil, errors.New("providers: nil Request")
	}
	names := make([]string, len(c.cands))
	labels := make([]string, len(c.cands))
	for i, cand := range c.cands {
		names[i] = cand.Provider
		labels[i] = cand.Provider + "/" + cand.Model
	}
	models := wireModels(c.cands)
	if req.Model != "" {
		// A conversation's own model choice replaces the primary's, so it is
		// what must be able to read the attachments.
		models[0] = req.Model
		labels[0] = c.cands[0].Provider + "/" + req.Model
	}
	capable, err := screen(req, models, labels, c.key)
	if err != nil {
		return nil, err
	}

	t := &chainTurn{c: c, primary: c.cands[0]}
	if until, lastErr, cool := c.health.cooling(c.cands[0].Provider); cool {
		t.primaryWhy = fmt.Sprintf("is cooling down for %s after: %s", until.Sub(c.health.now()).Round(time.Second), trimProvider(c.cands[0].Provider, lastErr))
	}
	streamed := !stream // true once the one streaming attempt is spent
	for _, i := range c.health.order(names) {
		cand := c.cands[i]
		if !capable[i] {
			why := "cannot read this message's attachments"
			t.skip(i, why)
			c.log.Info("providers: skipping model that cannot read the attachments", "model", labels[i])
			continue
		}
		r := *req
		r.Model = cand.Model
		if i == 0 && req.Model != "" {
			r.Model = req.Model
		}
		for attempt := 0; ; attempt++ {
			var resp *Response
			var err error
			delivered := false
			if !streamed {
				streamed = true
				resp, err = cand.Client.ChatStream(ctx, &r, func(d Delta) {
					if d.Content == "" {
						return
					}
					if !delivered && i != 0 {
						onDelta(Delta{Notice: t.notice(cand)})
					}
					delivered = true
					onDelta(d)
				})
				if err == nil && i != 0 && !delivered {
					onDelta(Delta{Notice: t.notice(cand)})
				}
			} else {
				resp, err = cand.Client.Chat(ctx, &r)
				if err == nil && stream {
					if i != 0 {
						onDelta(Delta{Notice: t.notice(cand)})
					}
					if resp.Message.Content != "" {
						onDelta(Delta{Content: resp.Message.Content})
					}
				}
			}
			if err == nil {
				c.health.Success(cand.Provider)
				resp.Provider = cand.Provider
				if i != 0 {
					resp.FallbackNotice = t.notice(cand)
					c.log.Info("providers: answered by a fallback", "model", labels[i], "notice", resp.FallbackNotice)
				}
				return resp, nil
			}
			if ctx.Err() != nil {
				// The caller gave up (or the turn ran out of time): no
				// retry, no fallback, and no blame on the provider.
				return resp, err
			}
			if delivered {
				c.health.Failure(cand.Provider, err, 0)
				return resp, err
			}
			wait, retry, cooldown := classify(err, attempt, cand.MaxRetries)
			if retry {
				if wait == 0 {
					wait = c.backoff(attempt)
				}
				c.log.Info("providers: transient failure; retrying", "model", labels[i], "attempt", attempt+1, "wait", wait, "err", err)
				if serr := c.sleep(ctx, wait); serr != nil {
					return nil, errorf("%s: waiting %s to retry after %w: %w", cand.Provider, wait, err, serr)
				}
				continue
			}
			if !errors.Is(err, errBadRequest) && !errors.Is(err, ErrAttachment) {
				c.health.Failure(cand.Provider, err, cooldown)
			}
			c.log.Info("providers: model failed; moving on", "model", labels[i], "attempts", attempt+1, "err", err)
			t.fail(i, err)
			break
		}
	}
	return nil, &ChainError{Failures: t.failures}
}

func wireModels(cands []Candidate) []string {
	out := make([]string, len(cands))
	for i, c := range cands {
		out[i] = c.Model
	}
	return out
}

// backoff is the wait before retry attempt+1: exponential from
// baseBackoff, capped at maxBackoff, with the upper half jittered so
// clients that failed together do not retry together.
func (c *Chain) backoff(attempt int) time.Duration {
	d := min(baseBackoff<<min(attempt, 16), maxBackoff)
	return d/2 + time.Duration(c.jitter()*float64(d/2))
}

// classify decides what a failure of attempt (0-based) means: retry in
// place after wait (zero: the chain's backoff), or move on, seeding a
// cooldown when the provider asked for a long pause.
func classify(err error, attempt, maxRetries int) (wait time.Duration, retry bool, cooldown time.Duration) {
	if errors.Is(err, errBadRequest) || errors.Is(err, ErrAttachment) || errors.Is(err, errTooLarge) {
		return 0, false, 0
	}
	// A provider that went silent is likely to do it again, and each try
	// costs the whole first-byte limit: the next candidate is better.
	var te *TransportError
	if errors.As(err, &te) && te.FirstByte {
		return 0, false, 0
	}
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		if !apiErr.Temporary() {
			return 0, false, 0
		}
		if apiErr.RetryAfter > MaxRetryWait {
			return 0, false, apiErr.RetryAfter
		}
		if attempt >= maxRetries {
			return 0, false, apiErr.RetryAfter
		}
		return apiErr.RetryAfter, true, 0
	}
	// Network errors, timeouts, broken streams and garbled bodies: the
	// next attempt may well succeed.
	return 0, attempt < maxRetries, 0
}

// chainTurn collects what happened during one request, for the notice and
// the final error.
type chainTurn struct {
	c          *Chain
	primary    Candidate
	primaryWhy string
	failures   []Failure
}

func (t *chainTurn) fail(i int, err error) {
	cand := t.c.cands[i]
	t.failures = append(t.failures, Failure{Provider: cand.Provider, Model: cand.Model, Err: err})
	if i == 0 {
		t.primaryWhy = "failed (" + reason(cand.Provider, err) + ")"
	}
}

func (t *chainTurn) skip(i int, why string) {
	cand := t.c.cands[i]
	t.failures = append(t.failures, Failure{Provider: cand.Provider, Model: cand.Model, Err: errorf("%s/%s %s", cand.Provider, cand.Model, why)})
	if i == 0 {
		t.primaryWhy = why
	}
}

// notice words the one-line fallback notice.
func (t *chainTurn) notice(answered Candidate) string {
	why := t.primaryWhy
	if why == "" {
		why = "was not tried"
		if len(t.failures) > 0 {
			why = "was passed over"
		}
	}
	return fmt.Sprintf("[fallback] %s (%s) %s; answered by %s (%s).", t.primary.Provider, t.primary.Model, why, answered.Provider, answered.Model)
}

// reason is err on one short line without the provider's name in front.
func reason(provider string, err error) string {
	var apiErr *APIError
	if errors.As(err, &apiErr) && apiErr.StatusCode >= 300 {
		msg := apiErr.Message
		if msg == "" {
			msg = http.StatusText(apiErr.StatusCode)
		}
		return oneLine(fmt.Sprintf("HTTP %d: %s", apiErr.StatusCode, msg), 160)
	}
	return oneLine(trimProvider(provider, err.Error()), 160)
}

func trimProvider(provider, s string) string {
	return strings.TrimPrefix(s, provider+": ")
}

// Failure is one candidate's failure within a [ChainError].
type Failure struct {
	// Provider and Model name the candidate.
	Provider, Model string
	// Err is its last error.
	Err error
}

// ChainError is returned by a [Chain] when no candidate answered. It wraps
// [ErrAllFailed] and every candidate's error.
type ChainError struct {
	// Failures holds one entry per candidate, in the order they were
	// tried.
	Failures []Failure
}

// Error is the single failure's own text when only one model was
// configured, else every failure on one line.
func (e *ChainError) Error() string {
	switch len(e.Failures) {
	case 0:
		return ErrAllFailed.Error()
	case 1:
		return e.Failures[0].Err.Error()
	}
	parts := make([]string, len(e.Failures))
	for i, f := range e.Failures {
		parts[i] = fmt.Sprintf("%s [model %s]", f.Err.Error(), f.Model)
	}
	return fmt.Sprintf("all %d models failed: %s", len(e.Failures), strings.Join(parts, "; "))
}

// Unwrap returns [ErrAllFailed] and each candidate's error.
func (e *ChainError) Unwrap() []error {
	out := make([]error, 0, len(e.Failures)+1)
	out = append(out, ErrAllFailed)
	for _, f := range e.Failures {
		out = append(out, f.Err)
	}
	return out
}
