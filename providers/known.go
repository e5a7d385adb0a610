package providers

import "slices"

// Spec describes a provider joshbot knows by name: where it listens by
// default and how it expects to be authenticated.
type Spec struct {
	// Name is the provider's config name ("openrouter").
	Name string
	// BaseURL is the default OpenAI-compatible endpoint; empty means the
	// operator must give one (api_base).
	BaseURL string
	// KeyEnv is the environment variable people conventionally keep the
	// provider's key in; empty when there is none.
	KeyEnv string
	// Keyless is true for providers that need no credential (a local
	// Ollama, a self-hosted server).
	Keyless bool
	// DefaultModel is a sensible first model for a new setup; empty when
	// it depends on what the operator installed.
	DefaultModel string
}

// known lists providers in the order a fresh setup looks for their keys.
var known = []Spec{
	{Name: "openrouter", BaseURL: "https://openrouter.ai/api/v1", KeyEnv: "OPENROUTER_API_KEY", DefaultModel: "openai/gpt-4o-mini"},
	{Name: "openai", BaseURL: "https://api.openai.com/v1", KeyEnv: "OPENAI_API_KEY", DefaultModel: "gpt-4o-mini"},
	{Name: "anthropic", BaseURL: "https://api.anthropic.com/v1", KeyEnv: "ANTHROPIC_API_KEY", DefaultModel: "claude-sonnet-4-5"},
	{Name: "groq", BaseURL: "https://api.groq.com/openai/v1", KeyEnv: "GROQ_API_KEY", DefaultModel: "llama-3.3-70b-versatile"},
	{Name: "nvidia", BaseURL: "https://integrate.api.nvidia.com/v1", KeyEnv: "NVIDIA_API_KEY", DefaultModel: "meta/llama-3.3-70b-instruct"},
	{Name: "ollama", BaseURL: "http://localhost:11434/v1", Keyless: true},
	{Name: "custom", Keyless: true},
}

// Lookup returns the spec of the provider called name.
func Lookup(name string) (Spec, bool) {
	i := slices.IndexFunc(known, func(s Spec) bool { return s.Name == name })
	if i < 0 {
		return Spec{}, false
	}
	return known[i], true
}

// Known returns every provider joshbot knows by name, in the order a fresh
// setup looks for their keys. The slice is a copy.
func Known() []Spec { return slices.Clone(known) }
