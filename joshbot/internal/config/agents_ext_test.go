package config

import (
	"strings"
	"testing"
)

func TestValidateAgentExtras(t *testing.T) {
	for _, tt := range []struct {
		name string
		mod  func(c *Config)
		want string
	}{
		{"defaults", func(*Config) {}, ""},
		{"bump", func(c *Config) { c.Agents.Defaults.HealTimeouts = "bump" }, ""},
		{"bad heal", func(c *Config) { c.Agents.Defaults.HealTimeouts = "yes" }, "agents.defaults.heal_timeouts"},
		{"bad repeat", func(c *Config) { c.Agents.Defaults.RepeatLimit = -5 }, "agents.defaults.repeat_limit"},
		{"bad depth", func(c *Config) { c.Agents.Defaults.MaxSubagentDepth = 9 }, "agents.defaults.max_subagent_depth"},
		{"profile ok", func(c *Config) {
			c.Agents.Profiles = map[string]AgentProfile{"coder": {Model: "m", Tools: []string{"read_file"}}}
		}, ""},
		{"profile named default", func(c *Config) { c.Agents.Profiles = map[string]AgentProfile{"default": {}} }, "agents.profiles key"},
		{"profile bad model", func(c *Config) { c.Agents.Profiles = map[string]AgentProfile{"x": {Model: "a b"}} }, "agents.profiles.x.model"},
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
