package config

import (
	"strings"
	"testing"

	"github.com/joshbot/joshbot/joshbot/internal/redact"
)

// TestLoadRegistersSecretsByValue: a credential not shaped like any
// vendor's key is removed by value once the configuration is loaded, from
// the file, from an api_key_env variable and from a channel token variable
// (issue 18: such a key reached incidents.jsonl, joshbot.log and
// provider_health.json).
func TestLoadRegistersSecretsByValue(t *testing.T) {
	t.Setenv("TEST_REG_PROVIDER_KEY", "prov1der-key-from-env")
	t.Setenv("TEST_REG_DISCORD", "d1scord-token-value")
	t.Setenv("TEST_REG_HOOK", "h00k-secret-value")
	t.Setenv("SOME_OTHER_SERVICE_TOKEN", "unrelated-env-t0ken")
	body := `{
  "schema_version": 1,
  "agents": {"defaults": {"provider": "custom", "model": "m"}},
  "providers": {
    "custom": {"api_base": "http://127.0.0.1:9/v1", "api_key_env": "TEST_REG_PROVIDER_KEY"},
    "other": {"api_base": "http://127.0.0.1:9/v1", "api_key": "f1le-key-not-vendor-shaped"}
  },
  "channels": {"discord": {"token_env": "TEST_REG_DISCORD"}},
  "tools": {"web": {"exa_api_key": "exa-f1le-key-value"}},
  "api": {"api_keys": ["http-ap1-key-value"]}
}`
	if _, err := Load(writeConfig(t, body)); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"prov1der-key-from-env", "f1le-key-not-vendor-shaped", "d1scord-token-value", "exa-f1le-key-value", "http-ap1-key-value", "unrelated-env-t0ken"} {
		line := "401 Unauthorized: invalid key " + v + " (check it)"
		if got := redact.String(line); strings.Contains(got, v) {
			t.Errorf("%q survived redaction: %q", v, got)
		}
	}
	r := WebhookRoute{SecretEnv: "TEST_REG_HOOK"}
	if _, err := r.Secret("webhooks.routes[0]"); err != nil {
		t.Fatal(err)
	}
	if got := redact.String("sig h00k-secret-value"); strings.Contains(got, "h00k") {
		t.Errorf("webhook secret survived: %q", got)
	}
	// Names of variables and ordinary settings are not secrets.
	if got := redact.String("api_key_env names TEST_REG_PROVIDER_KEY; model m"); got != "api_key_env names TEST_REG_PROVIDER_KEY; model m" {
		t.Errorf("non-secret text changed: %q", got)
	}
}
