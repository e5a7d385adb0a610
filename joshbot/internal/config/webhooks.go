package config

import (
	"fmt"
	"net"
	"os"
	"strings"

	"github.com/joshbot/joshbot/joshbot/internal/redact"
)

// Webhooks configures the signed webhook receiver the gateway runs.
type Webhooks struct {
	// Listen is the address the receiver listens on, such as
	// "127.0.0.1:8787" behind a reverse proxy. Empty means no receiver.
	Listen string `json:"listen,omitempty"`
	// MaxBodyBytes caps one delivery's body; zero means 1 MiB.
	MaxBodyBytes int64 `json:"max_body_bytes,omitempty"`
	// Routes are the endpoints, each with its own secret.
	Routes []WebhookRoute `json:"routes,omitempty"`
}

// WebhookRoute is one endpoint for GitHub deliveries.
type WebhookRoute struct {
	// Name identifies the route; its deliveries share one session.
	Name string `json:"name"`
	// Path is the URL path GitHub posts to, such as "/hooks/github".
	Path string `json:"path"`
	// SecretEnv names the variable holding the webhook secret set on
	// GitHub. Required: an unsigned route would let anyone reach the agent.
	SecretEnv string `json:"secret_env"`
	// Agent names the agents.profiles entry that runs the deliveries;
	// empty means the default agent.
	Agent string `json:"agent,omitempty"`
	// Events lists the GitHub events to run; empty means all.
	Events []string `json:"events,omitempty"`
}

// Secret returns the route's secret from SecretEnv; key is the route's
// config key for the error.
func (r *WebhookRoute) Secret(key string) (string, error) {
	v := strings.TrimSpace(os.Getenv(r.SecretEnv))
	if v == "" {
		return "", errorf("%s.secret_env names %s, which is not set: export %s with the secret configured on GitHub", key, r.SecretEnv, r.SecretEnv)
	}
	redact.AddSecret(v)
	return v, nil
}

func (c *Config) validateWebhooks() error {
	w := &c.Webhooks
	if w.Listen == "" {
		if len(w.Routes) > 0 {
			return errorf("webhooks.routes is set but webhooks.listen is empty: set it to an address such as 127.0.0.1:8787")
		}
		return nil
	}
	if _, _, err := net.SplitHostPort(w.Listen); err != nil {
		return errorf("webhooks.listen %q is not host:port: %v", w.Listen, err)
	}
	if len(w.Routes) == 0 {
		return errorf("webhooks.listen is set but webhooks.routes is empty: add a route with name, path and secret_env")
	}
	if w.MaxBodyBytes < 0 {
		return errorf("webhooks.max_body_bytes is %d: use a positive size, or 0 for 1 MiB", w.MaxBodyBytes)
	}
	paths := map[string]bool{}
	for i, r := range w.Routes {
		key := fmt.Sprintf("webhooks.routes[%d]", i)
		switch {
		case r.Name == "":
			return errorf("%s.name is empty: name the route", key)
		case !strings.HasPrefix(r.Path, "/"):
			return errorf("%s.path %q must start with /", key, r.Path)
		case paths[r.Path]:
			return errorf("%s.path %q is used by another route", key, r.Path)
		case r.SecretEnv == "":
			return errorf("%s.secret_env is empty: name the variable holding the GitHub webhook secret (unsigned deliveries are never accepted)", key)
		}
		if r.Agent != "" {
			if _, ok := c.Agents.Profiles[r.Agent]; !ok {
				return errorf("%s.agent %q is not in agents.profiles: add the profile or remove the key", key, r.Agent)
			}
		}
		paths[r.Path] = true
	}
	return nil
}
