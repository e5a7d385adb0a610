package runtime

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/joshbot/joshbot/providers"
)

// keyedTimeouts wraps a chain candidate's client so that its timeouts name
// the config key that sets them: the providers library words its own
// timeout in its API's terms (ClientOptions.Timeout), which a user of the
// binary cannot change.
type keyedTimeouts struct {
	providers.Provider
	key string // e.g. "providers.groq.timeout"
}

// Chat implements providers.Provider.
func (k keyedTimeouts) Chat(ctx context.Context, req *providers.Request) (*providers.Response, error) {
	resp, err := k.Provider.Chat(ctx, req)
	return resp, withTimeoutKey(err, k.key)
}

// ChatStream implements providers.Provider.
func (k keyedTimeouts) ChatStream(ctx context.Context, req *providers.Request, onDelta func(providers.Delta)) (*providers.Response, error) {
	resp, err := k.Provider.ChatStream(ctx, req, onDelta)
	return resp, withTimeoutKey(err, k.key)
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
}

// Error says what timed out and which key to raise.
func (e *ProviderTimeout) Error() string {
	return fmt.Sprintf("%s: the request timed out after %s: raise %s if the model needs longer", e.Provider, e.Limit, e.Key)
}

// Unwrap returns the providers library's error.
func (e *ProviderTimeout) Unwrap() error { return e.err }
