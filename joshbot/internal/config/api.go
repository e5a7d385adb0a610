package config

import (
	"net"
	"strings"
)

// API configures `joshbot serve`, the OpenAI-compatible HTTP API.
type API struct {
	// Listen is the address to bind; empty means 127.0.0.1:18791, loopback
	// only, because a caller reaches the agent's tools.
	Listen string `json:"listen,omitempty"`
	// APIKeys are the bearer tokens a client may present. Blank entries
	// are ignored, and serve refuses to start with none left: there is no
	// unauthenticated mode.
	APIKeys []string `json:"api_keys,omitempty"`
	// WebUI serves the browser chat page. Off by default: the page is a
	// login form that accepts an API key, which must not appear on an
	// existing bind just because joshbot was upgraded.
	WebUI bool `json:"webui,omitempty"`
}

// DefaultAPIListen is the bind address of `joshbot serve` when api.listen is
// empty.
const DefaultAPIListen = "127.0.0.1:18791"

// ListenAddr returns the address serve binds, checking api.listen.
func (a *API) ListenAddr() (string, error) {
	addr := strings.TrimSpace(a.Listen)
	if addr == "" {
		return DefaultAPIListen, nil
	}
	if _, port, err := net.SplitHostPort(addr); err != nil || port == "" {
		return "", errorf("api.listen %q is not host:port: write it like %q", a.Listen, DefaultAPIListen)
	}
	return addr, nil
}

// Keys returns the non-blank api.api_keys.
func (a *API) Keys() []string {
	var out []string
	for _, k := range a.APIKeys {
		if k = strings.TrimSpace(k); k != "" {
			out = append(out, k)
		}
	}
	return out
}
