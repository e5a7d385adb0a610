package providers

import (
	"slices"
	"strings"
)

// URLStyle says how a provider lays out its endpoint URLs.
type URLStyle int

const (
	// StyleOpenAI appends chat/completions (or embeddings,
	// audio/transcriptions) to the base URL. It is the zero value.
	StyleOpenAI URLStyle = iota
	// StyleAzure puts the model (an Azure deployment name) in the path:
	// <base>/openai/deployments/<model>/chat/completions?api-version=...
	StyleAzure
)

// DefaultAzureAPIVersion is the api-version query parameter sent to Azure
// when the base URL does not carry one.
const DefaultAzureAPIVersion = "2024-10-21"

// Spec describes a provider joshbot knows by name: where it listens by
// default and how it expects to be authenticated.
type Spec struct {
	// Name is the provider's config name ("openrouter"). It is also the
	// model prefix that selects the provider ("groq/llama-3.3-70b").
	Name string
	// BaseURL is the default OpenAI-compatible endpoint; empty means the
	// operator must give one (api_base).
	BaseURL string
	// KeyEnv is the environment variable people conventionally keep the
	// provider's key in; empty when there is none.
	KeyEnv string
	// Keyless is true for providers that need no credential (a local
	// Ollama, a self-hosted server). A key is still sent when one is set.
	Keyless bool
	// DefaultModel is a sensible first model for a new setup; empty when
	// it depends on what the operator installed.
	DefaultModel string
	// AuthHeader is the header that carries the key as is; empty means
	// "Authorization: Bearer <key>".
	AuthHeader string
	// Style is the endpoint URL layout.
	Style URLStyle
	// KeepPrefix is true when the provider's own model ids start with its
	// name, so the prefix that selected it is sent on the wire too.
	KeepPrefix bool
	// Headers are sent with every request to the provider; nil means none.
	Headers map[string]string
}

// known lists providers in the order a fresh setup looks for their keys.
// Their Headers are left out (see knownHeaders): a map literal here would
// cost the package init code, where the slice is laid out statically.
var known = []Spec{
	{Name: "openrouter", BaseURL: "https://openrouter.ai/api/v1", KeyEnv: "OPENROUTER_API_KEY", DefaultModel: "openai/gpt-4o-mini"},
	{Name: "openai", BaseURL: "https://api.openai.com/v1", KeyEnv: "OPENAI_API_KEY", DefaultModel: "gpt-4o-mini"},
	{Name: "anthropic", BaseURL: "https://api.anthropic.com/v1", KeyEnv: "ANTHROPIC_API_KEY", DefaultModel: "claude-sonnet-4-5"},
	{Name: "groq", BaseURL: "https://api.groq.com/openai/v1", KeyEnv: "GROQ_API_KEY", DefaultModel: "llama-3.3-70b-versatile"},
	{Name: "nvidia", BaseURL: "https://integrate.api.nvidia.com/v1", KeyEnv: "NVIDIA_API_KEY", DefaultModel: "meta/llama-3.3-70b-instruct"},
	{Name: "poolside", BaseURL: "https://api.poolside.ai/v1", KeyEnv: "POOLSIDE_API_KEY", KeepPrefix: true},
	{Name: "azure", KeyEnv: "AZURE_OPENAI_API_KEY", AuthHeader: "api-key", Style: StyleAzure},
	// Its headers are added by knownHeaders.
	{Name: "github_copilot", BaseURL: "https://api.githubcopilot.com", KeyEnv: "GITHUB_COPILOT_TOKEN", DefaultModel: "gpt-4o"},
	{Name: "ollama", BaseURL: "http://localhost:11434/v1", Keyless: true},
	{Name: "litellm", BaseURL: "http://localhost:4000/v1", Keyless: true},
	{Name: "custom", Keyless: true},
}

// Lookup returns the spec of the provider called name.
func Lookup(name string) (Spec, bool) {
	i := slices.IndexFunc(known, func(s Spec) bool { return s.Name == name })
	if i < 0 {
		return Spec{}, false
	}
	s := known[i]
	s.Headers = knownHeaders(s.Name)
	return s, true
}

// knownHeaders returns a fresh map of the headers the provider called name
// sends with every request, or nil.
func knownHeaders(name string) map[string]string {
	if name == "github_copilot" {
		// The Copilot API refuses requests that do not say which
		// integration they come from.
		return map[string]string{"Copilot-Integration-Id": "vscode-chat", "Editor-Version": "joshbot/1"}
	}
	return nil
}

// Known returns every provider joshbot knows by name, in the order a fresh
// setup looks for their keys. The slice is a copy.
func Known() []Spec {
	out := slices.Clone(known)
	for i := range out {
		out[i].Headers = knownHeaders(out[i].Name)
	}
	return out
}

// ProviderForModel selects a provider by the prefix of a model id:
// "groq/llama-3.3-70b-versatile" selects groq. A prefix that names no known
// provider ("meta-llama/..." sent through OpenRouter) selects nothing.
func ProviderForModel(model string) (Spec, bool) {
	prefix, _, ok := strings.Cut(model, "/")
	if !ok {
		return Spec{}, false
	}
	return Lookup(strings.ToLower(prefix))
}

// StripProviderPrefix returns the model id to send to provider: model with
// a leading "<provider>/" removed, except for providers whose own ids carry
// their name (poolside). Everything that builds a wire request or reports
// one (preflight) goes through this function, so the two cannot disagree.
func StripProviderPrefix(provider, model string) string {
	if s, ok := Lookup(provider); ok && s.KeepPrefix {
		return model
	}
	if rest, ok := strings.CutPrefix(model, provider+"/"); ok && rest != "" {
		return rest
	}
	return model
}
