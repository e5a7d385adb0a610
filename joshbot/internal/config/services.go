package config

import (
	"errors"

	"github.com/joshbot/joshbot/providers"
)

// Service names the provider (and model) behind a non-chat endpoint: speech
// to text or embeddings. The provider's key, api_base and timeout under
// providers.<name> are reused, so there is one credential store.
type Service struct {
	// Provider names an entry of providers, or a built-in provider.
	Provider string `json:"provider,omitempty"`
	// Model is the model to ask; empty means the provider's default
	// (whisper-large-v3 on groq, whisper-1 on openai for stt;
	// nomic-embed-text on ollama, text-embedding-3-small on openai for
	// embeddings). Other providers must set it.
	Model string `json:"model,omitempty"`
}

// ErrNotConfigured is returned by [Config.ResolveSTT] and
// [Config.ResolveEmbeddings] when the service's provider is not set, so a
// caller can answer "not configured" (naming the key) rather than fail.
var ErrNotConfigured = errors.New("not configured")

// ResolveSTT resolves the speech-to-text service. Without stt.provider it
// returns an error wrapping [ErrNotConfigured]; any other error names the
// key to fix and is a [*ResolveError].
func (c *Config) ResolveSTT() (*ResolvedModel, error) {
	return c.resolveService("stt", c.STT, providers.DefaultTranscriptionModel)
}

// ResolveEmbeddings resolves the embeddings service, as [Config.ResolveSTT]
// does. A keyless provider (ollama) needs no key.
func (c *Config) ResolveEmbeddings() (*ResolvedModel, error) {
	return c.resolveService("embeddings", c.Embeddings, providers.DefaultEmbeddingModel)
}

func (c *Config) resolveService(key string, s Service, defaultModel func(string) string) (*ResolvedModel, error) {
	if s.Provider == "" {
		return nil, errorf("%s.provider is not set: %w", key, ErrNotConfigured)
	}
	p, ok := c.Providers[s.Provider]
	spec, isKnown := providers.Lookup(s.Provider)
	if !ok && !isKnown {
		return nil, &ResolveError{CodeProviderNotEnabled, key + ".provider", errorf("%s.provider is %q, which is not built in and has no providers.%s entry", key, s.Provider, s.Provider)}
	}
	model := s.Model
	if model == "" {
		model = defaultModel(s.Provider)
	}
	if model == "" {
		return nil, &ResolveError{CodeUnresolvable, key + ".model", errorf("%s.model is empty and provider %s has no default: set %s.model", key, s.Provider, key)}
	}
	rm, err := c.finish(&ResolvedModel{Key: key, Provider: s.Provider, Model: model}, spec, isKnown, &p, nil)
	if err != nil {
		return nil, err
	}
	return rm, nil
}
