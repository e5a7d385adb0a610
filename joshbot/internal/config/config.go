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
	// Channels configures the chat surfaces the gateway runs.
	Channels Channels `json:"channels"`
	// Webhooks configures the signed webhook receiver; zero means none.
	Webhooks Webhooks `json:"webhooks,omitzero"`
	// ModelsConfig is the model-centric way to choose models: when
	// models_config.agent.model is set it replaces agents.defaults.provider
	// and agents.defaults.model, and may list fallbacks. Zero means the
	// legacy fields decide.
	ModelsConfig ModelsConfig `json:"models_config,omitzero"`
	// Profiles are named model setups, one of which a run may select with
	// --profile (or default_profile). Nil means none.
	Profiles map[string]Profile `json:"profiles,omitempty"`
	// DefaultProfile names the profile used when --profile is not given;
	// empty means no profile, and the config is used exactly as written.
	DefaultProfile string `json:"default_profile,omitempty"`
	// STT turns speech into text through a configured provider; zero
	// means no speech to text.
	STT Service `json:"stt,omitzero"`
	// Embeddings serves vectors through a configured provider; zero means
	// no embeddings.
	Embeddings Service `json:"embeddings,omitzero"`
	// API configures `joshbot serve` (see api.go).
	API API `json:"api,omitzero"`
	// MCP declares Model Context Protocol servers; see [MCP].
	MCP MCP `json:"mcp,omitzero"`
	// Tools configures the shell and web tools.
	Tools Tools `json:"tools"`
	// Tuning adjusts the web tools' timeouts from experience; see [Tuning].
	Tuning Tuning `json:"tuning,omitzero"`
	// Owner declares the person who runs this joshbot, whose identities
	// share one memory; zero means inferred (see owner.go).
	Owner Owner `json:"owner,omitzero"`

	// credSources records where each entry's credential came from, keyed
	// by the entry's config key ("providers.groq"), for preflight. It is
	// filled by Load and never written.
	credSources map[string]CredentialSource
	// profile is the name of the profile Load applied; empty when none.
	profile string
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
	// MaxAnswerBytes caps the text of an answer kept in the conversation
	// and shown: a longer answer is cut there, with a note naming the
	// workspace file (answers/...) that keeps it whole. Zero means
	// DefaultMaxAnswerBytes; otherwise MinAnswerBytes to MaxAnswerBytes.
	MaxAnswerBytes int `json:"max_answer_bytes,omitempty"`
	// Streaming shows answers while they are generated on a terminal.
	Streaming bool `json:"streaming"`
	// QuietFallback suppresses the one-line notice that opens a reply
	// answered by a fallback model. False (the default) shows it.
	QuietFallback bool `json:"quiet_fallback,omitempty"`
	// CompactionThreshold is the estimated size, in tokens, of a session's
	// history above which its older part is summarized; zero means 64000
	// and -1 turns automatic compaction off (/compact still works).
	CompactionThreshold int `json:"compaction_threshold,omitempty"`
	// MemoryMaxBytes is the size MEMORY.md and each session's memory are
	// kept under, by consolidating the overflow; zero means 12288.
	MemoryMaxBytes int `json:"memory_max_bytes,omitempty"`
	// Learning is "on" (the default when empty) or "off": whether a model
	// call after each turn extracts facts to remember.
	Learning string `json:"learning,omitempty"`
	// LearnScope is "person" (the default when empty): what is learned
	// belongs to the person talking, shared by all their conversations on
	// every channel (the owner's in MEMORY.md on a single-person install,
	// see [Owner]); "session", keeping it to the one conversation; or
	// "shared", writing everyone's to MEMORY.md.
	LearnScope string `json:"learn_scope,omitempty"`
	// LearningModel is a (cheaper) model for the learning step, resolved
	// like models_config.agent.model (see Config.ResolveLearningModel);
	// empty means the agent's own model.
	LearningModel string `json:"learning_model,omitempty"`
	// DreamMode is "off" (the default when empty), "record" or "full".
	DreamMode string `json:"dream_mode,omitempty"`
	// HealTimeouts is "", "off" or "bump": with "bump" each turn timeout in
	// the last 24h adds 30s to the next start's turn timeout, up to +2m.
	HealTimeouts string `json:"heal_timeouts,omitempty"`
	// RepeatLimit is how many identical tool calls in a row run before the
	// next is refused; zero means 3, -1 turns the check off.
	RepeatLimit int `json:"repeat_limit,omitempty"`
	// MaxSubagentDepth is how deep subagents may nest; zero means 1, -1
	// disables the subagent tools.
	MaxSubagentDepth int `json:"max_subagent_depth,omitempty"`
	// MaxRefusedRepeats is how many repeated tool calls repeat_limit may
	// refuse in one turn before the turn ends with a summary instead of
	// asking the model again; zero means 2, -1 never ends a turn for it.
	MaxRefusedRepeats int `json:"max_refused_repeats,omitempty"`
	// MaxMessageBytes caps a user message kept in the conversation: a
	// longer one is saved as a file under the workspace's inbox/ and the
	// conversation references it. Zero means DefaultMaxMessageBytes;
	// otherwise MinMessageBytes to MaxMessageBytes.
	MaxMessageBytes int `json:"max_message_bytes,omitempty"`
	// ContextWindow is the model's context window in tokens, for models
	// joshbot does not know (a local model served with a small context);
	// zero means the known window, 128000 for an unknown model. No request
	// is built larger than it.
	ContextWindow int `json:"context_window,omitempty"`
	// FirstByteTimeout bounds the wait for a streamed answer to begin, for
	// every provider without its own first_byte_timeout; zero means 60s.
	// On expiry the turn falls back to the next model.
	FirstByteTimeout Duration `json:"first_byte_timeout,omitzero"`
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
	// FirstByteTimeout bounds the wait for a streamed answer to begin
	// (headers and first event), separately from Timeout; zero means
	// agents.defaults.first_byte_timeout, else 60s. On expiry the turn
	// falls back to the next model at once.
	FirstByteTimeout Duration `json:"first_byte_timeout,omitzero"`
	// MaxRetries is how often a transient failure (429, 5xx, a network
	// error) is retried against this provider before falling over: 0 to
	// 10. Nil means 2; 0 means fail over at once.
	MaxRetries *int `json:"max_retries,omitempty"`
	// ExtraBody holds provider-specific fields merged into every request
	// body (for example poolside's chat_template_kwargs). Nil means none.
	ExtraBody map[string]any `json:"extra_body,omitempty"`
}

// Bounds of agents.defaults.max_answer_bytes. The upper bound stays well
// under what one session line may hold (16 MiB), so a capped answer can
// always be saved.
const (
	DefaultMaxAnswerBytes = 1 << 20
	MinAnswerBytes        = 1 << 10
	MaxAnswerBytes        = 8 << 20
)

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
		Channels:  Channels{Telegram: Telegram{AllowFrom: []string{}}},
	}
}
