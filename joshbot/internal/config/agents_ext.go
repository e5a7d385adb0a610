package config

import (
	"sort"
	"strings"
)

// AgentProfile is one named agent setup: chosen for a conversation with
// /agent, or handed a task through the delegate tool.
type AgentProfile struct {
	// Description says in one line what the profile is for; the model
	// reads it when choosing whom to delegate to.
	Description string `json:"description,omitempty"`
	// Model replaces agents.defaults.model; empty keeps it.
	Model string `json:"model,omitempty"`
	// Tools limits the profile to these tool names; empty means every
	// tool. A profile can only narrow the set.
	Tools []string `json:"tools,omitempty"`
	// Prompt is added to the system prompt.
	Prompt string `json:"prompt,omitempty"`
	// MaxIterations bounds a delegated run; zero means 15.
	MaxIterations int `json:"max_iterations,omitempty"`
}

// validateAgentExtras checks the keys added for commands, subagents and
// incidents.
func (c *Config) validateAgentExtras() error {
	if err := c.validateTurnCost(); err != nil {
		return err
	}
	d := &c.Agents.Defaults
	switch d.HealTimeouts {
	case "", "off", "bump":
	default:
		return errorf("agents.defaults.heal_timeouts is %q: use \"bump\", \"off\" or remove the key", d.HealTimeouts)
	}
	if d.RepeatLimit < -1 {
		return errorf("agents.defaults.repeat_limit is %d: use a positive number, 0 for the default of 3, or -1 to turn the check off", d.RepeatLimit)
	}
	if d.MaxSubagentDepth < -1 || d.MaxSubagentDepth > 5 {
		return errorf("agents.defaults.max_subagent_depth is %d: use 1 to 5, 0 for the default of 1, or -1 to disable subagents", d.MaxSubagentDepth)
	}
	names := make([]string, 0, len(c.Agents.Profiles))
	for n := range c.Agents.Profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := c.Agents.Profiles[n]
		if n == "" || n == "default" || strings.ContainsAny(n, " \t\n/") || len(n) > 40 {
			return errorf("agents.profiles key %q: use a short name without spaces or slashes, other than \"default\"", n)
		}
		if strings.ContainsAny(p.Model, " \t\n") {
			return errorf("agents.profiles.%s.model %q: a model id has no spaces", n, p.Model)
		}
		if p.MaxIterations < 0 {
			return errorf("agents.profiles.%s.max_iterations is %d: use a positive number or 0 for the default", n, p.MaxIterations)
		}
	}
	return nil
}
