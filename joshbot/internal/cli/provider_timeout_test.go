package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/providers/providertest"
)

// slowProviderConfig is a config whose provider "custom" answers nothing
// within its one-second request timeout, and is not retried.
func slowProviderConfig(t *testing.T) string {
	t.Helper()
	srv := providertest.NewServer(t)
	srv.SetFallback(func(providertest.Request) providertest.Reply {
		return providertest.Reply{Content: "too late", Delay: 30 * time.Second}
	})
	zero := 0
	return serveConfig(t, srv, func(c *config.Config) {
		c.Providers["custom"] = config.Provider{APIBase: srv.URL(), Timeout: config.Duration(time.Second), MaxRetries: &zero}
	})
}

// A provider timeout names the config key that sets it, never a Go name.
func TestProviderTimeoutNamesTheConfigKey(t *testing.T) {
	clearProviderEnv(t)
	r := runCLI(t, "", "--config", slowProviderConfig(t), "agent", "-m", "hi")
	out := r.stdout + r.stderr
	if r.code != 1 || !strings.Contains(out, "timed out") || !strings.Contains(out, "providers.custom.timeout") || strings.Contains(out, "ClientOptions") {
		t.Fatalf("agent -m against a slow provider: %+v\nwant a timeout naming providers.custom.timeout", r)
	}
}

// serve reports a timed-out upstream as a timeout, naming the key.
func TestServeProviderTimeoutIsATimeout(t *testing.T) {
	clearProviderEnv(t)
	s := startServe(t, slowProviderConfig(t))
	for _, stream := range []string{"false", "true"} {
		resp := s.post(t, "/v1/chat/completions", serveKey, `{"stream":`+stream+`,"messages":[{"role":"user","content":"hi"}]}`)
		body := readAll(t, resp.Body)
		if resp.StatusCode != 504 || !strings.Contains(body, "timed out") || !strings.Contains(body, "providers.custom.timeout") || strings.Contains(body, "could not be reached") {
			t.Fatalf("stream=%s: status %d: %s\nwant 504 saying it timed out and naming providers.custom.timeout", stream, resp.StatusCode, body)
		}
	}
}
