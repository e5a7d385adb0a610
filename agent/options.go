package agent

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/tools"
)

// Sessions is the session store the agent keeps conversations in: the
// methods of the memory module's *memory.Store that the agent calls.
// Implementations must be safe for concurrent use.
type Sessions interface {
	// Lock serializes turns on one key, across every process sharing the
	// store; the agent holds it for a whole turn, from Load to the final
	// Save, and calls unlock once. It fails when ctx ends first.
	Lock(ctx context.Context, key string) (unlock func(), err error)
	// Load returns the session for key, empty when there is none.
	Load(key string) (*memory.Session, error)
	// Save writes sess durably.
	Save(sess *memory.Session) error
	// Stage writes sess without waiting for the disk; Save follows.
	Stage(sess *memory.Session) error
	// Compact replaces the messages before cut with summary, written at at.
	Compact(sess *memory.Session, cut int, summary string, at time.Time) error
	// Reset empties the session for key.
	Reset(key string) error
	// LoadMeta and UpdateMeta read and change the session's metadata,
	// where the agent counts turns and, without [CommandOptions].Prefs,
	// keeps each session's /model, /personality and /agent choices.
	LoadMeta(key string) (*memory.Meta, error)
	UpdateMeta(key string, fn func(*memory.Meta)) error
}

// LongTermMemory is a workspace's long-term memory: the methods of the
// memory module's *memory.LongTerm that the agent calls. A scope is a
// session key, or "" for the memory every session shares.
// Implementations must be safe for concurrent use.
type LongTermMemory interface {
	// ScopeOf returns the scope of a session key: whose facts its turns
	// learn and its prompt shows (the key itself, or a scope every
	// session of the same person shares).
	ScopeOf(key string) string
	// ReadFacts returns the scope's facts as they go into the prompt.
	ReadFacts(scope string) (string, error)
	// Facts returns the scope's facts one by one, oldest first.
	Facts(scope string) ([]string, error)
	// AddFacts stores the facts not already known and reports which were
	// added and whether the scope is now over its size.
	AddFacts(scope string, facts []string) (added []string, over bool, err error)
	// Consolidate replaces the scope's facts with a shorter list.
	Consolidate(scope string, facts []string) error
	// SpillOverflow moves what does not fit out of the scope and reports
	// how many facts moved.
	SpillOverflow(scope string) (int, error)
	// AppendHistory logs an excerpt of a turn on the session key.
	AppendHistory(key, text string) error
	// ConsolidateIfDue runs the periodic consolidation when it is due;
	// a nil report means it was not.
	ConsolidateIfDue() (*memory.ConsolidationReport, error)
	// MaxBytes is the size a scope's facts are kept under.
	MaxBytes() int
}

// Tools are the tools the model may call: the methods of the tools
// module's *tools.Registry that the agent calls. Implementations must be
// safe for concurrent use.
type Tools interface {
	// Definitions lists the tools offered to the model. The agent asks
	// again before every request and rebuilds its list only when the
	// returned slice is not the one it got last time, so an
	// implementation should return the same slice while nothing changed.
	Definitions() []tools.Definition
	// Execute runs the named tool with the model's JSON arguments.
	Execute(ctx context.Context, name string, args json.RawMessage) (string, error)
	// Get returns the named tool, to learn about its optional abilities
	// (tools.Conditional).
	Get(name string) (tools.Tool, bool)
	// Len is the number of tools, for /status.
	Len() int
}

var (
	_ Sessions       = (*memory.Store)(nil)
	_ LongTermMemory = (*memory.LongTerm)(nil)
	_ Tools          = (*tools.Registry)(nil)
)

// Options configures an [Agent]; nil means every default. The provider, the
// model and the session store are arguments of [New].
type Options struct {
	// Tools the model may call; nil means none.
	Tools Tools
	// Workspace is the directory holding the identity files and MEMORY.md;
	// empty means a built-in prompt.
	Workspace string
	// Logger receives operational logs; nil means slog.Default().
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time

	// Requests shapes each request to the model.
	Requests RequestOptions
	// Limits bound a turn.
	Limits LimitOptions
	// Memory configures compaction and long-term memory.
	Memory MemoryOptions
	// Commands configures the slash commands and per-session preferences.
	Commands CommandOptions
	// Hooks connect the agent to incidents, skills and turn observers.
	Hooks HookOptions
	// SettingNames are how replies name the settings a person changes.
	SettingNames SettingNames
}

// RequestOptions shape each request to the model.
type RequestOptions struct {
	// ProviderName names the provider in error messages and logs; empty
	// means "provider".
	ProviderName string
	// Temperature is sent when non-nil.
	Temperature *float64
	// MaxTokens is sent when non-zero.
	MaxTokens int
	// DisableStreaming keeps even turns with a sink on the non-streaming
	// path; the sink then receives the whole answer at once.
	DisableStreaming bool
	// ContextWindow is the model's context window in tokens; zero means
	// what providers.ContextWindow knows of the model (128k for one it
	// does not). No request is built larger than the window less the
	// room kept for the answer (MaxTokens, or else DefaultReplyReserve
	// up to a quarter of the window): older history is left out of the
	// request first, then the longest contents are clipped; the session
	// keeps every word. Automatic compaction starts by three quarters of
	// that budget at the latest.
	ContextWindow int
	// WaitingNotice is how long a streamed request may go without its
	// answer starting before the sink receives a [StreamEvent] Waiting,
	// repeated at the same interval until the answer starts; zero means
	// DefaultWaitingNotice and a negative value sends none.
	WaitingNotice time.Duration
	// QuietFallback suppresses the one-line notice a provider chain sets
	// (providers.Response.FallbackNotice) when a fallback model answered.
	// False shows it at the start of the reply and as a [StreamEvent]
	// Notice, because a silent model switch reads as the primary working.
	QuietFallback bool
}

// LimitOptions bound a turn and the loops inside it.
type LimitOptions struct {
	// MaxIterations bounds model calls per turn; zero means
	// DefaultMaxIterations.
	MaxIterations int
	// Timeout bounds one turn; zero or negative means DefaultTimeout.
	Timeout time.Duration
	// HistoryLimit bounds how many stored messages a turn sends; zero means
	// DefaultHistoryLimit.
	HistoryLimit int
	// RepeatLimit is how many identical tool calls in a row run before the
	// next one is refused; zero means DefaultRepeatLimit, negative disables
	// the check.
	RepeatLimit int
	// MaxSubagentDepth is how deep subagents may nest: 1 lets the main
	// agent spawn subagents that cannot spawn again. Zero means 1; negative
	// disables subagents.
	MaxSubagentDepth int
	// SubagentMaxIterations bounds one subagent's model calls; zero means
	// DefaultSubagentIterations.
	SubagentMaxIterations int
	// MaxAnswerBytes caps the text of a final answer kept in the session
	// and shown to the user; zero means DefaultMaxAnswerBytes, and New
	// refuses a negative value or one over MaxAnswerBytesLimit. A longer
	// answer is kept whole in a file under the workspace's AnswersDir,
	// and the session and the user get its first MaxAnswerBytes with a
	// note naming that file; a streamed answer stops at the cap too, so
	// nothing is shown that the session does not keep.
	MaxAnswerBytes int
	// MaxRefusedRepeats is how many repeated tool calls the loop guard
	// (RepeatLimit) may refuse in one turn before the turn ends without
	// asking the model again, answering with the summary an iteration
	// limit gives and [ErrRepeatedCalls]. Zero means
	// DefaultMaxRefusedRepeats; negative never ends a turn for this.
	MaxRefusedRepeats int
	// MaxMessageBytes caps the user's message kept in the session; zero
	// means DefaultMaxMessageBytes, and New refuses a negative value. A
	// longer message is saved whole in a file under the workspace's
	// InboxDir, and the session and the model get a reference to it with
	// its beginning (the model reads the rest with the file tools);
	// without a workspace it is refused with [ErrMessageTooLarge].
	MaxMessageBytes int
}

// MemoryOptions configure compaction and long-term memory.
type MemoryOptions struct {
	// LongTerm is the workspace's long-term memory; nil means no history
	// log, no learning and no per-session facts.
	LongTerm LongTermMemory
	// CompactionThreshold is the estimated size in tokens of a session's
	// history above which its older part is summarized (a session longer
	// than LimitOptions.HistoryLimit messages is compacted too): in the
	// background after the reply that takes it over, or, failing that,
	// before the next turn's request. Zero means
	// DefaultCompactionThreshold and a negative value turns automatic
	// compaction off (/compact still works).
	CompactionThreshold int
	// DisableLearning skips the model call after each turn that extracts
	// facts; the history log is still written.
	DisableLearning bool
	// LearnShared stores learned facts in the shared MEMORY.md, which every
	// session sees, instead of the session's own memory. Only for a
	// workspace that serves one person.
	LearnShared bool
	// LearnTimeout bounds one learning request (and the consolidation
	// that may follow it); zero means DefaultLearnTimeout. A compaction
	// after the turn is bounded by LimitOptions.Timeout instead.
	LearnTimeout time.Duration
	// LearnEvery is how many exchanges of a session are gathered into one
	// learning request; zero means DefaultLearnEvery and 1 learns after
	// every turn. Exchanges still waiting are learned from when the
	// session goes idle (LearnIdle) and when [Agent.Wait] or
	// [Agent.Shutdown] runs.
	LearnEvery int
	// LearnIdle is how long a session with exchanges waiting to be learned
	// from may stay without a new turn before they are learned from; zero
	// means DefaultLearnIdle and a negative value waits for LearnEvery
	// exchanges or for Wait or Shutdown.
	LearnIdle time.Duration
	// LearnProvider and LearnModel name a (cheaper) model for learning and
	// for the consolidation of learned facts; nil and "" mean the agent's
	// own provider and model. A LearnModel without a LearnProvider is
	// asked of the agent's provider.
	LearnProvider Provider
	LearnModel    string
}

// CommandOptions configure the slash commands and the per-session
// preferences they set.
type CommandOptions struct {
	// Prefs stores each session's /model, /personality and /agent choices;
	// nil keeps them in the session's metadata in the session store.
	Prefs SessionPrefs
	// ModelChoices are the models a bare /model offers; the configured
	// model is always offered first.
	ModelChoices []string
	// SaveGlobalModel persists /model <name> --global as the default
	// model; nil means --global is refused with an explanation.
	SaveGlobalModel func(ctx context.Context, model string) error
	// Personalities adds to or replaces the built-in personalities, by
	// name; the text goes into the prompt. Nil means the built-in ones.
	Personalities map[string]string
	// Profiles are the named agent profiles /agent and the delegate tool
	// pick from; nil means none.
	Profiles map[string]Profile
	// ProviderStatus adds provider health lines to /status; nil adds none.
	ProviderStatus func() []string
}

// HookOptions connect the agent to what observes or extends its turns.
type HookOptions struct {
	// Incidents records turn failures; nil records none.
	Incidents IncidentRecorder
	// Skills supplies skill summaries for the prompt; nil means none.
	Skills SkillSummaries
	// OnTurn, when set, is called after every completed turn with the
	// names of the tools it called, in order (used by skill detection).
	OnTurn func(sessionKey string, toolNames []string)
}

// SettingNames are how the agent's replies name the settings a person
// changes when a limit stops a turn or a command is not available. A
// program that reads them from a config file passes its own keys; each
// empty field means the name of this package's option.
type SettingNames struct {
	// Model is the setting that picks the default model; empty means
	// "the model given to agent.New".
	Model string
	// MaxIterations sets [LimitOptions].MaxIterations; empty means
	// "LimitOptions.MaxIterations".
	MaxIterations string
	// Timeout sets [LimitOptions].Timeout; empty means
	// "LimitOptions.Timeout".
	Timeout string
	// MaxSubagentDepth sets [LimitOptions].MaxSubagentDepth; empty means
	// "LimitOptions.MaxSubagentDepth".
	MaxSubagentDepth string
	// Profiles is where agent profiles are defined; empty means
	// "CommandOptions.Profiles".
	Profiles string
	// MaxAnswerBytes sets [LimitOptions].MaxAnswerBytes; empty means
	// "LimitOptions.MaxAnswerBytes".
	MaxAnswerBytes string
	// MaxRefusedRepeats sets [LimitOptions].MaxRefusedRepeats; empty means
	// "LimitOptions.MaxRefusedRepeats".
	MaxRefusedRepeats string
	// MaxMessageBytes sets [LimitOptions].MaxMessageBytes; empty means
	// "LimitOptions.MaxMessageBytes".
	MaxMessageBytes string
}

// withDefaults fills the empty names with the package's option names.
func (n SettingNames) withDefaults() SettingNames {
	def := func(s *string, v string) {
		if *s == "" {
			*s = v
		}
	}
	def(&n.Model, "the model given to agent.New")
	def(&n.MaxIterations, "LimitOptions.MaxIterations")
	def(&n.Timeout, "LimitOptions.Timeout")
	def(&n.MaxSubagentDepth, "LimitOptions.MaxSubagentDepth")
	def(&n.Profiles, "CommandOptions.Profiles")
	def(&n.MaxAnswerBytes, "LimitOptions.MaxAnswerBytes")
	def(&n.MaxRefusedRepeats, "LimitOptions.MaxRefusedRepeats")
	def(&n.MaxMessageBytes, "LimitOptions.MaxMessageBytes")
	return n
}
