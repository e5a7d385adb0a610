package runtime

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/providers"
)

// keyedTimeouts wraps a chain candidate's client so that its timeouts name
// the config key that sets them: the providers library words its own
// timeout in its API's terms (ClientOptions.Timeout), which a user of the
// binary cannot change.
type keyedTimeouts struct {
	providers.Provider
	key          string // e.g. "providers.groq.timeout"
	firstByteKey string // e.g. "providers.groq.first_byte_timeout"
}

// Chat implements providers.Provider.
func (k keyedTimeouts) Chat(ctx context.Context, req *providers.Request) (*providers.Response, error) {
	resp, err := k.Provider.Chat(ctx, req)
	return resp, withTimeoutKeys(err, k.key, k.firstByteKey)
}

// ChatStream implements providers.Provider.
func (k keyedTimeouts) ChatStream(ctx context.Context, req *providers.Request, onDelta func(providers.Delta)) (*providers.Response, error) {
	resp, err := k.Provider.ChatStream(ctx, req, onDelta)
	return resp, withTimeoutKeys(err, k.key, k.firstByteKey)
}

// withTimeoutKeys is withTimeoutKey for a chain candidate: a first-byte
// timeout names firstByteKey, any other timeout key.
func withTimeoutKeys(err error, key, firstByteKey string) error {
	var te *providers.TransportError
	if err != nil && errors.As(err, &te) && te.Timeout && te.FirstByte && firstByteKey != "" {
		return &ProviderTimeout{err: err, Provider: te.Provider, Limit: te.Limit, Key: firstByteKey, FirstByte: true}
	}
	return withTimeoutKey(err, key)
}

// withTimeoutKey rewords err, when it is the provider client's own
// timeout, to name key; any other error is returned as it is.
func withTimeoutKey(err error, key string) error {
	var te *providers.TransportError
	if err == nil || !errors.As(err, &te) || !te.Timeout {
		return err
	}
	return &ProviderTimeout{err: err, Provider: te.Provider, Limit: te.Limit, Key: key}
}

// ProviderTimeout is a provider request that ran past its own timeout,
// worded with the config key to raise. It wraps the library's error, so
// errors.As still finds the [*providers.TransportError].
type ProviderTimeout struct {
	err error
	// Provider is the provider's name, Limit the timeout it ran past and
	// Key the config key that sets it.
	Provider string
	Limit    time.Duration
	Key      string
	// FirstByte is set when no answer began within Limit, as opposed to
	// the whole request running past it.
	FirstByte bool
}

// Error says what timed out and which key to raise.
func (e *ProviderTimeout) Error() string {
	if e.FirstByte {
		return fmt.Sprintf("%s: no answer began within %s: raise %s if the model is slow to start", e.Provider, e.Limit, e.Key)
	}
	return fmt.Sprintf("%s: the request timed out after %s: raise %s if the model needs longer", e.Provider, e.Limit, e.Key)
}

// Unwrap returns the providers library's error.
func (e *ProviderTimeout) Unwrap() error { return e.err }

// firstByteKey is the config key that sets m's first-byte timeout: the
// one the config resolved it from, else the provider's own.
func firstByteKey(m *config.ResolvedModel) string {
	if m.FirstByteTimeoutKey != "" {
		return m.FirstByteTimeoutKey
	}
	return "providers." + m.Provider + ".first_byte_timeout"
}
