package config

import (
	"strings"

	"github.com/joshbot/joshbot/providers"
)

// learningModelKey is the key of the learning model.
const learningModelKey = "agents.defaults.learning_model"

// ResolveLearningModel resolves agents.defaults.learning_model, the model
// the learning step asks, like a model-centric entry: a provider prefix
// ("groq/llama-3.1-8b-instant") picks the provider and its credential; a
// bare id is a model of agents.defaults.provider, or else of the agent's
// primary model's provider. It returns nil when the key is empty (the
// agent's own model learns). An error is a [*ResolveError] naming the key.
func (c *Config) ResolveLearningModel() (*ResolvedModel, error) {
	m := c.Agents.Defaults.LearningModel
	if m == "" {
		return nil, nil
	}
	e := &ModelEntry{Model: m}
	if !c.prefixed(m) && c.Agents.Defaults.Provider == "" {
		if mc, err := c.ResolveModelConfig(); err == nil && len(mc.Models) > 0 {
			e.Provider = mc.Models[0].Provider
		}
	}
	return c.resolveEntry(learningModelKey, e)
}

// prefixed tells whether model's id names its provider.
func (c *Config) prefixed(model string) bool {
	if _, ok := providers.ProviderForModel(model); ok {
		return true
	}
	prefix, _, ok := strings.Cut(model, "/")
	return ok && c.hasProvider(prefix)
}
