package config

import (
	"strings"
	"testing"
	"time"
)

func TestValidateTurnCost(t *testing.T) {
	for _, tt := range []struct {
		name string
		mod  func(c *Config)
		want string
	}{
		{"defaults", func(*Config) {}, ""},
		{"message cap", func(c *Config) { c.Agents.Defaults.MaxMessageBytes = 64 << 10 }, ""},
		{"message cap too small", func(c *Config) { c.Agents.Defaults.MaxMessageBytes = 10 }, "agents.defaults.max_message_bytes"},
		{"message cap too large", func(c *Config) { c.Agents.Defaults.MaxMessageBytes = 1 << 30 }, "agents.defaults.max_message_bytes"},
		{"window", func(c *Config) { c.Agents.Defaults.ContextWindow = 8192 }, ""},
		{"window too small", func(c *Config) { c.Agents.Defaults.ContextWindow = 12 }, "agents.defaults.context_window"},
		{"refused off", func(c *Config) { c.Agents.Defaults.MaxRefusedRepeats = -1 }, ""},
		{"refused bad", func(c *Config) { c.Agents.Defaults.MaxRefusedRepeats = -3 }, "agents.defaults.max_refused_repeats"},
		{"first byte unit", func(c *Config) { c.Agents.Defaults.FirstByteTimeout = Duration(30 * time.Millisecond) }, "agents.defaults.first_byte_timeout"},
		{"provider first byte unit", func(c *Config) {
			c.Providers = map[string]Provider{"custom": {APIBase: "http://127.0.0.1:9/v1", FirstByteTimeout: Duration(5 * time.Millisecond)}}
		}, "providers.custom.first_byte_timeout"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := Defaults()
			tt.mod(c)
			err := c.Validate()
			if (err == nil) != (tt.want == "") || (err != nil && !strings.Contains(err.Error(), tt.want)) {
				t.Fatalf("Validate() = %v, want mention of %q", err, tt.want)
			}
		})
	}
}

// A provider's own first_byte_timeout wins over the default under
// agents.defaults, and the resolved model names the key that set it.
func TestFirstByteTimeoutResolves(t *testing.T) {
	for _, tt := range []struct {
		name, body string
		want       time.Duration
		key        string
	}{
		{"none", `{"schema_version":1,"agents":{"defaults":{"provider":"custom","model":"m"}},"providers":{"custom":{"api_base":"http://127.0.0.1:9/v1"}}}`, 0, ""},
		{"default", `{"schema_version":1,"agents":{"defaults":{"provider":"custom","model":"m","first_byte_timeout":"20s"}},"providers":{"custom":{"api_base":"http://127.0.0.1:9/v1"}}}`, 20 * time.Second, "agents.defaults.first_byte_timeout"},
		{"provider", `{"schema_version":1,"agents":{"defaults":{"provider":"custom","model":"m","first_byte_timeout":"20s"}},"providers":{"custom":{"api_base":"http://127.0.0.1:9/v1","first_byte_timeout":"45s"}}}`, 45 * time.Second, "providers.custom.first_byte_timeout"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Load(writeConfig(t, tt.body))
			if err != nil {
				t.Fatal(err)
			}
			mc, err := cfg.ResolveModelConfig()
			if err != nil {
				t.Fatal(err)
			}
			if m := mc.Models[0]; m.FirstByteTimeout != tt.want || m.FirstByteTimeoutKey != tt.key {
				t.Fatalf("got %s from %q, want %s from %q", m.FirstByteTimeout, m.FirstByteTimeoutKey, tt.want, tt.key)
			}
		})
	}
}

// The new keys take environment overrides like every other key.
func TestTurnCostEnvOverrides(t *testing.T) {
	t.Setenv("JOSHBOT_AGENTS__DEFAULTS__FIRST_BYTE_TIMEOUT", "25s")
	t.Setenv("JOSHBOT_AGENTS__DEFAULTS__MAX_MESSAGE_BYTES", "4096")
	cfg, err := Load(writeConfig(t, valid))
	if err != nil {
		t.Fatal(err)
	}
	if d := cfg.Agents.Defaults; d.FirstByteTimeout.Std() != 25*time.Second || d.MaxMessageBytes != 4096 {
		t.Fatalf("overrides not applied: %+v", d)
	}
}
