// Package config reads, checks and writes joshbot's config.json.
//
// The file is JSON with a schema_version. Every key can be overridden from
// the environment: JOSHBOT_PROVIDERS__OPENROUTER__API_KEY sets
// providers.openrouter.api_key (double underscores separate the levels).
// Anything that would make joshbot fail later, in the middle of a
// conversation, is refused at load with an error naming the key to change.
package config

import "time"

// SchemaVersion is the config layout this build writes and reads.
const SchemaVersion = 1

// Config is the whole of config.json.
type Config struct {
	// SchemaVersion is the layout the file was written with.
	SchemaVersion int `json:"schema_version"`
	// Agents holds the agent's settings.
	Agents Agents `json:"agents"`
	// Providers maps a provider name ("openrouter", "ollama", "custom", ...)
	// to how to reach it.
	Providers map[string]Provider `json:"providers"`
}

// Agents groups agent settings; only the defaults exist so far.
type Agents struct {
	Defaults AgentDefaults `json:"defaults"`
	// Profiles are named agent setups (model, tools, prompt) for /agent
	// and the delegate tool; see AgentProfile.
	Profiles map[string]AgentProfile `json:"profiles,omitempty"`
}

// AgentDefaults configures every conversation.
type AgentDefaults struct {
	// Workspace is the directory of identity files, MEMORY.md and the
	// files the tools may touch. Empty means <home>/workspace; a leading ~
	// is the user's home directory.
	Workspace string `json:"workspace,omitempty"`
	// Provider names the entry of providers to use.
	Provider string `json:"provider"`
	// Model is the model id sent to the provider.
	Model string `json:"model"`
	// MaxToolIterations bounds model calls per turn; zero means 50.
	MaxToolIterations int `json:"max_tool_iterations,omitempty"`
	// Timeout bounds one turn; zero means 2m.
	Timeout Duration `json:"timeout,omitzero"`
	// Temperature is sent to the model when set.
	Temperature *float64 `json:"temperature,omitempty"`
	// MaxTokens caps the answer length when non-zero.
	MaxTokens int `json:"max_tokens,omitempty"`
	// Streaming shows answers while they are generated on a terminal.
	Streaming bool `json:"streaming"`
	// HealTimeouts is "", "off" or "bump": with "bump" each turn timeout in
	// the last 24h adds 30s to the next start's turn timeout, up to +2m.
	HealTimeouts string `json:"heal_timeouts,omitempty"`
	// RepeatLimit is how many identical tool calls in a row run before the
	// next is refused; zero means 3, -1 turns the check off.
	RepeatLimit int `json:"repeat_limit,omitempty"`
	// MaxSubagentDepth is how deep subagents may nest; zero means 1, -1
	// disables the subagent tools.
	MaxSubagentDepth int `json:"max_subagent_depth,omitempty"`
}

// Provider says how to reach one LLM provider.
type Provider struct {
	// APIKey is the credential itself. Prefer APIKeyEnv.
	APIKey string `json:"api_key,omitempty"`
	// APIKeyEnv names an environment variable holding the credential, so
	// the file holds no secret. Setting both APIKey and APIKeyEnv is an
	// error.
	APIKeyEnv string `json:"api_key_env,omitempty"`
	// APIBase is the OpenAI-compatible base URL; empty means the provider's
	// default endpoint.
	APIBase string `json:"api_base,omitempty"`
	// Timeout bounds one request; zero means 120s.
	Timeout Duration `json:"timeout,omitzero"`
}

// Defaults returns the configuration used for every key a file leaves out.
func Defaults() *Config {
	return &Config{
		SchemaVersion: SchemaVersion,
		Agents: Agents{Defaults: AgentDefaults{
			MaxToolIterations: 50,
			Timeout:           Duration(2 * time.Minute),
			Streaming:         true,
		}},
		Providers: map[string]Provider{},
	}
}
