package config

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/joshbot/joshbot/providers"
)

// Endpoint is everything needed to dial the configured provider. It holds
// the credential: never print it.
type Endpoint struct {
	// Provider is the config name of the provider.
	Provider string
	// BaseURL is the OpenAI-compatible endpoint.
	BaseURL string
	// APIKey is the credential; empty for keyless providers.
	APIKey string
	// Timeout bounds one request; zero means the client default.
	Timeout time.Duration
	// Model is the wire model id.
	Model string
}

// ErrNoProvider is returned by [Config.Endpoint] when no provider is chosen.
var ErrNoProvider = errors.New("no provider configured")

// Endpoint resolves the provider the agent talks to. The error names the
// key (and, for a credential, the environment variable) to set.
func (c *Config) Endpoint() (*Endpoint, error) {
	d := &c.Agents.Defaults
	name := d.Provider
	if name == "" {
		return nil, fmt.Errorf("%w: set agents.defaults.provider to one of the entries under providers (run `joshbot onboard` to write a working config)", ErrNoProvider)
	}
	p, ok := c.Providers[name]
	spec, isKnown := providers.Lookup(name)
	if !ok && !isKnown {
		return nil, fmt.Errorf("agents.defaults.provider is %q, but there is no providers.%s entry: add one with an api_base", name, name)
	}
	if d.Model == "" {
		return nil, fmt.Errorf("no model configured: set agents.defaults.model (for example %q)", exampleModel(spec))
	}
	base := p.APIBase
	if base == "" {
		base = spec.BaseURL
	}
	if base == "" {
		return nil, fmt.Errorf("providers.%s.api_base is empty: set it to the server's OpenAI-compatible URL, e.g. \"http://localhost:8080/v1\"", name)
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("providers.%s.api_base %q is not an http(s) URL", name, base)
	}
	if p.APIKey == "" && !spec.Keyless && isKnown {
		envName := EnvPrefix + "PROVIDERS__" + strings.ToUpper(name) + "__API_KEY"
		hint := spec.KeyEnv
		if hint == "" {
			hint = "YOUR_KEY_VARIABLE"
		}
		return nil, fmt.Errorf("provider %s has no API key: set providers.%s.api_key_env to the variable holding it (e.g. %q) or export %s", name, name, hint, envName)
	}
	return &Endpoint{Provider: name, BaseURL: base, APIKey: p.APIKey, Timeout: p.Timeout.Std(), Model: d.Model}, nil
}

func exampleModel(s providers.Spec) string {
	if s.DefaultModel != "" {
		return s.DefaultModel
	}
	return "llama3.2"
}

// Home is joshbot's state directory: $JOSHBOT_HOME, else ~/.joshbot.
func Home() (string, error) {
	if h := os.Getenv("JOSHBOT_HOME"); h != "" {
		return filepath.Abs(h)
	}
	u, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find home directory: %w (set JOSHBOT_HOME)", err)
	}
	return filepath.Join(u, ".joshbot"), nil
}

// WorkspaceDir returns the workspace directory for a config whose state
// lives in home.
func (c *Config) WorkspaceDir(home string) (string, error) {
	w := c.Agents.Defaults.Workspace
	if w == "" {
		return filepath.Join(home, "workspace"), nil
	}
	if rest, ok := strings.CutPrefix(w, "~"); ok && (rest == "" || rest[0] == '/') {
		u, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("agents.defaults.workspace %q: %w", w, err)
		}
		w = u + rest
	}
	if !filepath.IsAbs(w) {
		w = filepath.Join(home, w)
	}
	return filepath.Clean(w), nil
}
