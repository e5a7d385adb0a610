package config

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"strings"
	"time"

	"github.com/joshbot/joshbot/providers"
)

// ModelsConfig is the model-centric block of the config.
type ModelsConfig struct {
	// Agent is the model the agent talks to, with its fallbacks.
	Agent ModelEntry `json:"agent,omitzero"`
}

// ModelEntry names one model and, optionally, how to reach it. A field left
// empty is taken from providers.<provider>, then from the provider's
// built-in defaults.
type ModelEntry struct {
	// Model is the model id, usually prefixed with its provider
	// ("groq/llama-3.3-70b-versatile"); the prefix selects the provider
	// and is stripped before sending, except for poolside.
	Model string `json:"model,omitempty"`
	// Provider names the provider when the model id does not start with
	// one (an OpenRouter id such as "meta-llama/llama-3-8b"). Empty means
	// the prefix decides, else agents.defaults.provider.
	Provider string `json:"provider,omitempty"`
	// APIKey is the credential itself. Prefer APIKeyEnv.
	APIKey string `json:"api_key,omitempty"`
	// APIKeyEnv names an environment variable holding the credential.
	// Setting both APIKey and APIKeyEnv is an error.
	APIKeyEnv string `json:"api_key_env,omitempty"`
	// APIBase overrides the endpoint; empty means the provider's.
	APIBase string `json:"api_base,omitempty"`
	// Timeout bounds one request; zero means the provider's.
	Timeout Duration `json:"timeout,omitzero"`
	// MaxRetries overrides providers.<name>.max_retries; nil means the
	// provider's (2 by default).
	MaxRetries *int `json:"max_retries,omitempty"`
	// ExtraBody fields are merged over the provider's; nil means none.
	ExtraBody map[string]any `json:"extra_body,omitempty"`
	// Fallbacks are tried in order when this model fails. Only the
	// agent's entry may have them.
	Fallbacks []ModelEntry `json:"fallbacks,omitempty"`
}

// Failure classes of [ResolveError], as preflight reports them.
const (
	// CodeNoDefaultProvider: nothing selects a provider at all.
	CodeNoDefaultProvider = "no-default-provider"
	// CodeProviderNotEnabled: a provider is named that is neither built in
	// nor configured under providers.
	CodeProviderNotEnabled = "provider-not-enabled"
	// CodeMissingCredential: the provider needs a key and none is set.
	CodeMissingCredential = "missing-credential"
	// CodeUnresolvable: anything else that keeps a model from being
	// dialled (no model, a bad api_base, an out-of-range setting).
	CodeUnresolvable = "unresolvable"
)

// ResolveError is why a model in the config cannot be dialled. Its message
// names the key to change.
type ResolveError struct {
	// Code is one of the Code constants.
	Code string
	// Key is the config key of the entry at fault ("models_config.agent").
	Key string
	// Err explains it.
	Err error
}

// Error returns the explanation, which names the key to change.
func (e *ResolveError) Error() string { return e.Err.Error() }

// Unwrap returns Err.
func (e *ResolveError) Unwrap() error { return e.Err }

// CredentialSource says where a credential came from, never what it is.
type CredentialSource struct {
	// Kind is "env-override" (JOSHBOT_..._API_KEY), "api_key_env",
	// "api_key" (written in the file) or "none".
	Kind string `json:"kind"`
	// Variable is the environment variable read, for the first two kinds.
	Variable string `json:"variable,omitempty"`
}

// String renders the source for text output.
func (s CredentialSource) String() string {
	switch s.Kind {
	case "env-override":
		return "environment override $" + s.Variable
	case "api_key_env":
		return "$" + s.Variable + " (api_key_env)"
	case "api_key":
		return "api_key in the config file"
	}
	return "none"
}

// ResolvedModel is one model ready to dial. It holds the credential: never
// print it or encode it.
type ResolvedModel struct {
	// Key is the config key of the entry ("models_config.agent",
	// "models_config.agent.fallbacks[0]", "agents.defaults").
	Key string
	// Provider is the provider's config name.
	Provider string
	// Model is the model as configured; WireModel is what is sent.
	Model, WireModel string
	// BaseURL is the endpoint.
	BaseURL string
	// APIKey is the credential; empty for keyless providers.
	APIKey string
	// Credential says where APIKey came from.
	Credential CredentialSource
	// Timeout bounds one request; zero means the client default.
	Timeout time.Duration
	// TimeoutKey is the config key that sets Timeout (the entry's own
	// timeout when it has one, else providers.<name>.timeout), named when
	// a request times out.
	TimeoutKey string
	// FirstByteTimeout bounds the wait for a streamed answer to begin
	// (providers.ClientOptions.FirstByteTimeout); zero means the client
	// default. FirstByteTimeoutKey is the key that sets it
	// (providers.<name>.first_byte_timeout or
	// agents.defaults.first_byte_timeout), empty when none does.
	FirstByteTimeout    time.Duration
	FirstByteTimeoutKey string
	// MaxRetries is the same-provider retry budget.
	MaxRetries int
	// ExtraBody is merged into every request; nil means none.
	ExtraBody map[string]any
	// AuthHeader, Style and Headers are the provider's wire conventions.
	AuthHeader string
	Style      providers.URLStyle
	Headers    map[string]string
}

// ModelConfig is the resolved model setup of a config: the primary model
// first, then the fallbacks.
type ModelConfig struct {
	// Models holds the primary and its fallbacks, in order.
	Models []ResolvedModel
	// ModelKey is the key an operator edits to change the primary model.
	ModelKey string
	// Profile is the profile the config was loaded with; empty when none.
	Profile string
}

// ModelCentric reports whether the model-centric block decides the model.
func (c *Config) ModelCentric() bool { return c.ModelsConfig.Agent.Model != "" }

// Profile returns the name of the profile applied at load; empty when none.
func (c *Config) Profile() string { return c.profile }

// agentKey is the config key of the agent's model-centric entry.
func (c *Config) agentKey() string {
	if c.profile != "" {
		return "profiles." + c.profile
	}
	return "models_config.agent"
}

// ResolveModelConfig resolves every model the agent may use into what
// dialling it takes, without dialling anything. The model-centric block
// wins when it names a model; otherwise agents.defaults.provider and
// agents.defaults.model decide. An error is a [*ResolveError].
func (c *Config) ResolveModelConfig() (*ModelConfig, error) {
	if !c.ModelCentric() {
		rm, err := c.resolveLegacy()
		if err != nil {
			return nil, err
		}
		return &ModelConfig{Models: []ResolvedModel{*rm}, ModelKey: "agents.defaults.model"}, nil
	}
	mc, problems := c.ResolveAll()
	if len(problems) > 0 {
		return nil, problems[0]
	}
	return mc, nil
}

// ResolveAll resolves every model like [Config.ResolveModelConfig] but
// goes on past a failure, returning the models that resolved and every
// problem, for reports that show the whole picture.
func (c *Config) ResolveAll() (*ModelConfig, []*ResolveError) {
	if !c.ModelCentric() {
		rm, err := c.resolveLegacy()
		if err != nil {
			return &ModelConfig{ModelKey: "agents.defaults.model"}, []*ResolveError{asResolveError(err)}
		}
		return &ModelConfig{Models: []ResolvedModel{*rm}, ModelKey: "agents.defaults.model"}, nil
	}
	key := c.agentKey()
	a := &c.ModelsConfig.Agent
	out := &ModelConfig{ModelKey: key + ".model", Profile: c.profile}
	var problems []*ResolveError
	add := func(k string, e *ModelEntry) {
		rm, err := c.resolveEntry(k, e)
		if err != nil {
			problems = append(problems, asResolveError(err))
			return
		}
		out.Models = append(out.Models, *rm)
	}
	add(key, a)
	for i := range a.Fallbacks {
		fk := fmt.Sprintf("%s.fallbacks[%d]", key, i)
		if len(a.Fallbacks[i].Fallbacks) > 0 {
			problems = append(problems, &ResolveError{CodeUnresolvable, fk, errorf("%s.fallbacks: a fallback cannot have fallbacks of its own; list them all under %s.fallbacks", fk, key)})
			continue
		}
		add(fk, &a.Fallbacks[i])
	}
	return out, problems
}

func asResolveError(err error) *ResolveError {
	var re *ResolveError
	if errors.As(err, &re) {
		return re
	}
	return &ResolveError{Code: CodeUnresolvable, Err: err}
}

func (c *Config) resolveLegacy() (*ResolvedModel, error) {
	d := &c.Agents.Defaults
	name := d.Provider
	if name == "" {
		return nil, &ResolveError{CodeNoDefaultProvider, "agents.defaults.provider", errorf("%w: set agents.defaults.provider to one of the entries under providers, or models_config.agent.model to a prefixed model id (run `joshbot onboard` to write a working config)", ErrNoProvider)}
	}
	p, ok := c.Providers[name]
	spec, isKnown := providers.Lookup(name)
	if !ok && !isKnown {
		return nil, &ResolveError{CodeProviderNotEnabled, "agents.defaults.provider", errorf("agents.defaults.provider is %q, but there is no providers.%s entry: add one with an api_base", name, name)}
	}
	if d.Model == "" {
		return nil, &ResolveError{CodeUnresolvable, "agents.defaults.model", errorf("no model configured: set agents.defaults.model (for example %q)", exampleModel(spec))}
	}
	return c.finish(&ResolvedModel{Key: "agents.defaults", Provider: name, Model: d.Model}, spec, isKnown, &p, nil)
}

// resolveEntry resolves one model-centric entry at config key key.
func (c *Config) resolveEntry(key string, e *ModelEntry) (*ResolvedModel, error) {
	if e.Model == "" {
		return nil, &ResolveError{CodeUnresolvable, key, errorf("%s.model is empty: name the model, for example \"groq/llama-3.3-70b-versatile\"", key)}
	}
	name := e.Provider
	if name == "" {
		if s, ok := providers.ProviderForModel(e.Model); ok {
			name = s.Name
		} else if prefix, _, ok := strings.Cut(e.Model, "/"); ok && c.hasProvider(prefix) {
			name = prefix
		} else {
			name = c.Agents.Defaults.Provider
		}
	}
	if name == "" {
		return nil, &ResolveError{CodeNoDefaultProvider, key, errorf("%w for %s.model %q: prefix it with its provider (%s/...), or set %s.provider",
			ErrNoProvider, key, e.Model, strings.Join(providerNames(), "/..., "), key)}
	}
	p, ok := c.Providers[name]
	spec, isKnown := providers.Lookup(name)
	if !ok && !isKnown {
		return nil, &ResolveError{CodeProviderNotEnabled, key, errorf("%s selects provider %q, which is not built in and has no providers.%s entry: add one with an api_base, or fix %s.provider", key, name, name, key)}
	}
	return c.finish(&ResolvedModel{Key: key, Provider: name, Model: e.Model}, spec, isKnown, &p, e)
}

// finish fills in endpoint, limits and credential from the entry (when
// given), the provider's config and the provider's defaults, in that order.
// On a missing credential it returns the filled-in model with the error.
func (c *Config) finish(rm *ResolvedModel, spec providers.Spec, isKnown bool, p *Provider, e *ModelEntry) (*ResolvedModel, error) {
	name := rm.Provider
	rm.WireModel = providers.StripProviderPrefix(name, rm.Model)
	rm.AuthHeader, rm.Style, rm.Headers = spec.AuthHeader, spec.Style, spec.Headers
	base, baseKey := p.APIBase, "providers."+name+".api_base"
	if e != nil && e.APIBase != "" {
		base, baseKey = e.APIBase, rm.Key+".api_base"
	}
	if base == "" {
		base = spec.BaseURL
	}
	if base == "" {
		return nil, &ResolveError{CodeUnresolvable, baseKey, errorf("%s is empty: set it to the server's OpenAI-compatible URL, e.g. \"http://localhost:8080/v1\"", baseKey)}
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, &ResolveError{CodeUnresolvable, baseKey, errorf("%s %q is not an http(s) URL", baseKey, redactURL(base))}
	}
	rm.BaseURL = base

	rm.Timeout, rm.TimeoutKey = p.Timeout.Std(), "providers."+rm.Provider+".timeout"
	switch {
	case p.FirstByteTimeout != 0:
		rm.FirstByteTimeout, rm.FirstByteTimeoutKey = p.FirstByteTimeout.Std(), "providers."+rm.Provider+".first_byte_timeout"
	case c.Agents.Defaults.FirstByteTimeout != 0:
		rm.FirstByteTimeout, rm.FirstByteTimeoutKey = c.Agents.Defaults.FirstByteTimeout.Std(), "agents.defaults.first_byte_timeout"
	}
	retries := p.MaxRetries
	rm.ExtraBody = maps.Clone(p.ExtraBody)
	if e != nil {
		if e.Timeout != 0 {
			rm.Timeout, rm.TimeoutKey = e.Timeout.Std(), rm.Key+".timeout"
		}
		if e.MaxRetries != nil {
			retries = e.MaxRetries
		}
		if len(e.ExtraBody) > 0 {
			if rm.ExtraBody == nil {
				rm.ExtraBody = map[string]any{}
			}
			maps.Copy(rm.ExtraBody, e.ExtraBody)
		}
	}
	rm.MaxRetries = providers.DefaultMaxRetries
	if retries != nil {
		rm.MaxRetries = *retries
	}

	// The credential comes last so that a missing one still leaves the
	// rest of rm filled in for reports.
	rm.APIKey = p.APIKey
	rm.Credential = c.sourceOf("providers."+name, p.APIKeyEnv, p.APIKey)
	if e != nil && (e.APIKey != "" || e.APIKeyEnv != "") {
		rm.APIKey = e.APIKey
		rm.Credential = c.sourceOf(rm.Key, e.APIKeyEnv, e.APIKey)
	}
	if rm.APIKey == "" && !spec.Keyless && isKnown {
		envName := EnvPrefix + "PROVIDERS__" + strings.ToUpper(name) + "__API_KEY"
		hint := spec.KeyEnv
		if hint == "" {
			hint = "YOUR_KEY_VARIABLE"
		}
		return rm, &ResolveError{CodeMissingCredential, "providers." + name + ".api_key_env",
			errorf("provider %s has no API key: set providers.%s.api_key_env to the variable holding it (e.g. %q) or export %s", name, name, hint, envName)}
	}
	if rm.APIKey == "" {
		rm.Credential = CredentialSource{Kind: "none"}
	}

	return rm, nil
}

// sourceOf says where the credential of the entry at key came from.
func (c *Config) sourceOf(key, keyEnv, key2 string) CredentialSource {
	if s, ok := c.credSources[key]; ok {
		return s
	}
	switch {
	case keyEnv != "":
		return CredentialSource{Kind: "api_key_env", Variable: keyEnv}
	case key2 != "":
		return CredentialSource{Kind: "api_key"}
	}
	return CredentialSource{Kind: "none"}
}

func (c *Config) noteSource(key string, s CredentialSource) {
	if c.credSources == nil {
		c.credSources = map[string]CredentialSource{}
	}
	c.credSources[key] = s
}

func providerNames() []string {
	var out []string
	for _, s := range providers.Known() {
		out = append(out, s.Name)
	}
	return out
}

// Host returns the host (and port) of an endpoint URL, without scheme,
// userinfo, path or query, so a credential embedded in a URL never leaks
// into a report. It returns "" for an unparseable URL.
func Host(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	return u.Host
}

// redactURL drops userinfo and the query from a URL for an error message.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparseable URL)"
	}
	u.User = nil
	u.RawQuery = ""
	return u.String()
}

func (c *Config) hasProvider(name string) bool {
	_, ok := c.Providers[name]
	return ok
}
