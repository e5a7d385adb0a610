package config

import (
	"errors"
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

// Endpoint resolves the primary model the agent talks to; see
// [Config.ResolveModelConfig] for the fallbacks too. The error names the key
// (and, for a credential, the environment variable) to set.
func (c *Config) Endpoint() (*Endpoint, error) {
	mc, err := c.ResolveModelConfig()
	if err != nil {
		return nil, err
	}
	m := &mc.Models[0]
	return &Endpoint{Provider: m.Provider, BaseURL: m.BaseURL, APIKey: m.APIKey, Timeout: m.Timeout, Model: m.WireModel}, nil
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
		return "", errorf("find home directory: %w (set JOSHBOT_HOME)", err)
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
			return "", errorf("agents.defaults.workspace %q: %w", w, err)
		}
		w = u + rest
	}
	if !filepath.IsAbs(w) {
		w = filepath.Join(home, w)
	}
	return filepath.Clean(w), nil
}

// Tilde shows the path p with the user's home directory as ~, for messages.
func Tilde(p string) string {
	if u, err := os.UserHomeDir(); err == nil && u != "/" {
		if rest, ok := strings.CutPrefix(p, u); ok && (rest == "" || rest[0] == os.PathSeparator) {
			return "~" + rest
		}
	}
	return p
}
