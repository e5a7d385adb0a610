package onboard

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/providers"
)

// Choices are the answers onboarding runs with: what a script passes as
// flags instead of relying on detection, or what [Ask] asked for.
type Choices struct {
	// Provider is the provider's name; "" detects one.
	Provider string
	// Model is the model id; "" is the provider's suggested model.
	Model string
	// APIBase is the OpenAI-compatible base URL; "" is the provider's.
	APIBase string
	// APIKeyEnv is the variable holding the key; "" is the provider's.
	APIKeyEnv string
	// OllamaURL is where detection looks for a local Ollama.
	OllamaURL string
	// Sandbox is the shell sandbox choice: auto, on or off
	// ([ApplySandboxChoice]).
	Sandbox string
	// APIKey is the key typed at the interactive onboarding; there is no
	// flag for it, so a key never lands in shell history.
	APIKey string
}

// KeyEnvs are the variables whose key alone is enough to onboard: the
// providers with a default endpoint and model.
func KeyEnvs() []string {
	var out []string
	for _, s := range providers.Known() {
		if s.KeyEnv != "" && s.BaseURL != "" && s.DefaultModel != "" {
			out = append(out, s.KeyEnv)
		}
	}
	return out
}

// NewConfig builds a config from the choices, or from what the
// environment offers (a key in a provider's variable, a running Ollama at
// f.OllamaURL). It fills f.Model with what detection picked.
func NewConfig(ctx context.Context, f *Choices) (*config.Config, error) {
	cfg := config.Defaults()
	name := f.Provider
	var spec providers.Spec
	if name == "" {
		s, model, err := detectProvider(ctx, f.OllamaURL)
		if err != nil {
			return nil, err
		}
		spec, name = s, s.Name
		if f.Model == "" {
			f.Model = model
		}
		if name == "ollama" && f.APIBase == "" {
			f.APIBase = strings.TrimRight(f.OllamaURL, "/") + "/v1"
		}
	} else {
		var ok bool
		spec, ok = providers.Lookup(name)
		if !ok {
			return nil, errorf("--provider %q is not known: use one of %s", name, strings.Join(KnownNames(), ", "))
		}
	}
	p := config.Provider{APIBase: f.APIBase, APIKeyEnv: f.APIKeyEnv}
	if p.APIKeyEnv == "" && !spec.Keyless {
		p.APIKeyEnv = spec.KeyEnv
	}
	if f.APIKey != "" {
		// Typed at the prompt: kept in the 0600 config, as api_key.
		p.APIKey, p.APIKeyEnv = f.APIKey, ""
	}
	if p.APIKeyEnv != "" && os.Getenv(p.APIKeyEnv) == "" {
		return nil, errorf("provider %s needs an API key: export %s=<your key> and run onboard again", name, p.APIKeyEnv)
	}
	if spec.BaseURL == "" && p.APIBase == "" {
		return nil, errorf("--provider %s needs --api-base, the server's OpenAI-compatible URL (e.g. http://localhost:8080/v1)", name)
	}
	model := f.Model
	if model == "" {
		model = spec.DefaultModel
	}
	if model == "" {
		return nil, errorf("--provider %s has no default model: pass --model", name)
	}
	cfg.Agents.Defaults.Provider = name
	cfg.Agents.Defaults.Model = model
	cfg.Providers[name] = p
	if err := cfg.Usable(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// detectProvider picks the first provider whose key is in the environment,
// else a running Ollama, and says exactly what to set when there is none.
func detectProvider(ctx context.Context, ollamaURL string) (providers.Spec, string, error) {
	for _, s := range providers.Known() {
		// A provider without a default endpoint (azure) or model needs
		// flags; detection only picks what works as is.
		if s.KeyEnv != "" && s.BaseURL != "" && s.DefaultModel != "" && strings.TrimSpace(os.Getenv(s.KeyEnv)) != "" {
			return s, s.DefaultModel, nil
		}
	}
	if model, err := ollamaModel(ctx, ollamaURL); err == nil {
		s, _ := providers.Lookup("ollama")
		return s, model, nil
	} else if !errors.Is(err, errNoOllama) {
		return providers.Spec{}, "", err
	}
	return providers.Spec{}, "", errorf("no LLM provider found: export one of %s (for example OPENROUTER_API_KEY=<key>), "+
		"or start Ollama on %s and pull a model, or pass --provider custom --api-base URL --model ID",
		strings.Join(KeyEnvs(), ", "), ollamaURL)
}

var errNoOllama = errors.New("no ollama")

// ollamaModel asks a local Ollama which models it has and returns the first.
func ollamaModel(ctx context.Context, base string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 1500*time.Millisecond)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(base, "/")+"/api/tags", nil)
	if err != nil {
		return "", errorf("--ollama-url %q: %w", base, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", errNoOllama
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", errNoOllama
	}
	var tags struct {
		Models []struct {
			Name string `json:"name"`
		} `json:"models"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(nil, resp.Body, 1<<20)).Decode(&tags); err != nil {
		return "", errNoOllama
	}
	if len(tags.Models) == 0 {
		return "", errorf("the Ollama running at %s has no models: run `ollama pull llama3.2` and onboard again", base)
	}
	return tags.Models[0].Name, nil
}

// KnownNames are the names of every built-in provider.
func KnownNames() []string {
	var out []string
	for _, s := range providers.Known() {
		out = append(out, s.Name)
	}
	return out
}
