package runtime

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/cron"
	"github.com/joshbot/joshbot/joshbot/internal/devicelogin"
	"github.com/joshbot/joshbot/mcpclient"
	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/sandbox"
	"github.com/joshbot/joshbot/tools"
)

// Options configure [Load]. A nil *Options is not allowed: ConfigPath and
// Home are required.
type Options struct {
	// ConfigPath is the config file, absolute; Home is the state directory
	// beside it (sessions, the default workspace, the logs).
	ConfigPath, Home string
	// Profile is --profile: the named model setup to run with; "" is the
	// config's own.
	Profile string
	// WrapTools rebuilds the tool registry before the agent is made (serve
	// and the gateway use [ProgressTools]); nil leaves the registry alone.
	WrapTools func(*tools.Registry) (*tools.Registry, error)
	// Logger receives the runtime's log lines; nil discards them.
	Logger *slog.Logger
	// BeforeStart, when set, is called once the config is checked and
	// before Load starts any process (the sandbox probe, MCP servers):
	// the command line waits there for its SIGTERM handler, registered
	// meanwhile, so that a stop reaps what Load started.
	BeforeStart func()
	// Stdout is where the message tools' output for the command line goes;
	// nil discards it.
	Stdout io.Writer
	// Health is the provider health shared by every chain of the process,
	// so conversations learn from one another's failures; nil makes a new
	// one.
	Health *providers.Health
	// Prestart has the agent's confined shell keep a sandbox helper
	// started ahead of its next command (tools.ShellOptions.Prestart): for
	// a long-lived process.
	Prestart bool
	// NewSandbox builds the shell's sandbox; nil is sandbox.New. Tests
	// use it to play a system without a sandbox.
	NewSandbox func(*sandbox.Policy, *sandbox.Options) (*sandbox.Sandbox, error)
	// CopilotTokenURL is where GitHub OAuth tokens are exchanged for
	// Copilot API tokens; "" is providers.CopilotTokenURL.
	CopilotTokenURL string
	// Now is the clock of timeout healing; nil is time.Now.
	Now func() time.Time
	// WrapSessions, when set, wraps the session store the agent writes
	// (Runtime.Sessions stays the store itself); tests use it to play a
	// disk that fills up.
	WrapSessions func(agent.Sessions) agent.Sessions
}

func (o *Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// Runtime is the set of parts one process needs to hold conversations. Its
// fields are read-only after [Load].
type Runtime struct {
	// Config is the loaded config, with the profile applied; ConfigPath
	// and Home are where it and the state live.
	Config           *config.Config
	ConfigPath, Home string
	// Endpoint is the primary model's provider, for reports.
	Endpoint *config.Endpoint
	Agent    *agent.Agent
	Sessions *memory.Store
	Memory   *memory.LongTerm
	// Incidents is the incident log the agent writes.
	Incidents *agent.IncidentLog
	// Healed is how much heal_timeouts added to the turn timeout.
	Healed time.Duration
	// Cron is the scheduled-job store the cron tool writes to.
	Cron *cron.Store
	// Outbox delivers the message tools' output; the gateway attaches its
	// bus to it.
	Outbox *Outbox
	// Health is the process's provider health (Options.Health, or the
	// one Load made).
	Health *providers.Health
	// MCP owns the MCP server processes; nil when none is enabled.
	MCP *mcpclient.Manager
	// Logger is Options.Logger, never nil.
	Logger *slog.Logger

	stdout io.Writer
	// close stops what the tools left running (background shell jobs).
	close func()
}

// Drain waits for the agent's work after its replies (bookkeeping,
// learning, compaction) until ctx ends, then abandons the model requests
// still running and waits only for the disk writes. What is abandoned is
// redone after a later turn, so it is logged, not reported as an error.
func (rt *Runtime) Drain(ctx context.Context) {
	if err := rt.Agent.Shutdown(ctx); err != nil {
		rt.Logger.Info("stopped without waiting for the model to finish learning or compacting; a later turn redoes it", "reason", err)
	}
}

// Close stops what the tools left running (background shell jobs), writes
// the session turn counts the store kept in memory, and stops and reaps
// every MCP server process. It is safe to call on a nil *Runtime and more
// than once.
func (rt *Runtime) Close() error {
	if rt == nil {
		return nil
	}
	if rt.close != nil {
		rt.close()
		rt.close = nil
	}
	if rt.Sessions != nil {
		// The turn counts the store keeps in memory (see
		// memory.Store.UpdateMeta), once the turns are over.
		if err := rt.Sessions.FlushMeta(); err != nil && rt.Logger != nil {
			rt.Logger.Warn("session turn counts not written", "err", err)
		}
	}
	if rt.MCP == nil {
		return nil
	}
	return rt.MCP.Close()
}

// Load reads the config and wires the provider, tools, sessions and
// agent. Nothing here dials the network; MCP servers, which are local
// processes, are started (ctx ending stops their start-up).
func Load(ctx context.Context, o *Options) (*Runtime, error) {
	o = o.withDefaults()
	cfgPath, home := o.ConfigPath, o.Home
	// One code path with preflight: what Check refuses, Load refuses.
	checked := o.Check()
	if err := checked.Err(cfgPath); err != nil {
		return nil, err
	}
	if o.BeforeStart != nil {
		o.BeforeStart()
	}
	cfg, mc, chain := checked.Config, checked.Models, checked.chain
	primary := &mc.Models[0]
	ep := &config.Endpoint{Provider: primary.Provider, BaseURL: primary.BaseURL, APIKey: primary.APIKey, Timeout: primary.Timeout, Model: primary.WireModel}
	ws, err := cfg.WorkspaceDir(home)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(ws, 0o700); err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	reg := tools.NewRegistry()
	if err := tools.RegisterFilesystem(reg, ws); err != nil {
		return nil, fmt.Errorf("workspace tools: %w", err)
	}
	if err := tools.RegisterFilesystemTool(reg); err != nil {
		return nil, fmt.Errorf("workspace tools: %w", err)
	}
	tuner, err := bumpBudgets(cfg, home, o.Logger)
	if err != nil {
		return nil, err
	}
	exaMCP := &mcpSearchTools{}
	closeTools, err := o.registerShellAndWeb(reg, cfg, home, ws, exaMCP)
	if err != nil {
		return nil, err
	}
	if reg, err = tuningTools(reg, tuner, o.Logger); err != nil {
		return nil, err
	}
	TightenHome(home, o.Logger)
	store, lt, err := openMemory(cfg, home, ws)
	if err != nil {
		return nil, err
	}
	if err := tools.RegisterMemorySearch(reg, lt); err != nil {
		return nil, err
	}
	if err := tools.RegisterSessionSearch(reg, store, lt.ScopeOf); err != nil {
		return nil, err
	}
	mcpm, withdrawals, err := startMCP(cfg, home, reg, o.Logger)
	if err != nil {
		return nil, err
	}
	exaMCP.m.Store(mcpm)
	d := cfg.Agents.Defaults
	opts := &agent.Options{
		Tools:     reg,
		Workspace: ws,
		Logger:    o.Logger,
		Requests: agent.RequestOptions{
			ProviderName:     ep.Provider,
			Temperature:      d.Temperature,
			MaxTokens:        d.MaxTokens,
			DisableStreaming: !d.Streaming,
			QuietFallback:    d.QuietFallback,
			ContextWindow:    d.ContextWindow,
		},
		Limits: agent.LimitOptions{MaxIterations: d.MaxToolIterations, Timeout: d.Timeout.Std(), MaxAnswerBytes: d.MaxAnswerBytes,
			MaxMessageBytes: d.MaxMessageBytes, MaxRefusedRepeats: d.MaxRefusedRepeats},
		Memory: agent.MemoryOptions{
			LongTerm:            lt,
			CompactionThreshold: d.CompactionThreshold,
			DisableLearning:     d.Learning == "off",
			LearnShared:         d.LearnScope == "shared",
		},
		SettingNames: agentSettingNames,
	}
	rt := &Runtime{Config: cfg, ConfigPath: cfgPath, Home: home, Endpoint: ep, Sessions: store, Memory: lt,
		Health: o.Health, MCP: mcpm, Logger: o.Logger, stdout: o.Stdout, close: closeTools}
	if err := o.learningModel(cfg, cfgPath, opts); err != nil {
		rt.Close()
		return nil, err
	}
	if err := o.extend(rt, ws, reg, opts); err != nil {
		rt.Close()
		return nil, err
	}
	// Wrapping comes last so the tools registered above report progress
	// too.
	if o.WrapTools != nil {
		if reg, err = o.WrapTools(reg); err != nil {
			rt.Close()
			return nil, fmt.Errorf("tools: %w", err)
		}
		opts.Tools = reg
		// The wrapped copy is what the agent offers: a server revoked
		// from here on must leave it too.
		withdrawals.track(reg, o.WrapTools)
	}
	var sessions agent.Sessions = store
	if o.WrapSessions != nil {
		sessions = o.WrapSessions(store)
	}
	ag, err := agent.New(chain, ep.Model, sessions, opts)
	if err != nil {
		rt.Close()
		return nil, err
	}
	rt.Agent = ag
	return rt, nil
}

// withDefaults returns a copy of o with its nil fields filled in.
func (o *Options) withDefaults() *Options {
	c := *o
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Stdout == nil {
		c.Stdout = io.Discard
	}
	if c.Health == nil {
		c.Health = providers.NewHealth(nil)
	}
	if c.NewSandbox == nil {
		c.NewSandbox = sandbox.New
	}
	if c.CopilotTokenURL == "" {
		c.CopilotTokenURL = providers.CopilotTokenURL
	}
	return &c
}

// openMemory opens the session store under home and the long-term memory in
// the workspace ws.
func openMemory(cfg *config.Config, home, ws string) (*memory.Store, *memory.LongTerm, error) {
	store, err := memory.NewStore(filepath.Join(home, "sessions"))
	if err != nil {
		return nil, nil, err
	}
	d := cfg.Agents.Defaults
	// Per-session facts live beside the sessions, outside the workspace the
	// filesystem tools can read, so one conversation cannot read another's.
	lt, err := memory.OpenLongTerm(ws, &memory.LongTermOptions{
		MaxBytes: d.MemoryMaxBytes, DreamMode: d.DreamMode, SessionDir: filepath.Join(home, "memory"),
		// The lock stays out of the workspace, where a shell command could
		// hold it and stall every later turn.
		LockDir: filepath.Join(home, "memory"),
		// Whose memory a session's turns learn into and see.
		Scope: MemoryScope(cfg),
	})
	if err != nil {
		return nil, nil, err
	}
	return store, lt, nil
}

// Stored is what the commands that inspect sessions and memory need. They
// work without provider credentials, and without a config file at all
// (with the defaults), so an operator can always look at what is stored.
type Stored struct {
	Config   *config.Config
	Home     string
	Sessions *memory.Store
	Memory   *memory.LongTerm
}

// LoadStored reads the config at cfgPath, if any, without resolving
// credentials, and opens the session store and long-term memory in home.
func LoadStored(cfgPath, home string) (*Stored, error) {
	cfg := config.Defaults()
	data, err := os.ReadFile(cfgPath)
	switch {
	case err == nil:
		if cfg, err = config.Parse(cfgPath, data); err != nil {
			return nil, err
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("read config: %w", err)
	}
	if err := config.ApplyEnv(cfg, os.Environ()); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("config %s: %w", config.Tilde(cfgPath), err)
	}
	ws, err := cfg.WorkspaceDir(home)
	if err != nil {
		return nil, err
	}
	TightenHome(home, slog.Default())
	store, lt, err := openMemory(cfg, home, ws)
	if err != nil {
		return nil, err
	}
	return &Stored{Config: cfg, Home: home, Sessions: store, Memory: lt}, nil
}

// LoadConfig loads the config at o.ConfigPath with o.Profile applied,
// strictly, for every command alike. The daemons (gateway, serve) once
// started on the defaults after an ordinary mistake; that dropped the
// provider, channels and keys the file sets and buried the real cause
// under a second, misleading error, so a mistake now stops them with the
// error that names it, as it stops `agent` and `preflight`.
func (o *Options) LoadConfig() (*config.Config, error) {
	return config.LoadWith(o.ConfigPath, &config.LoadOptions{Profile: o.Profile})
}

// ProviderChain builds the retry/fallback chain over every resolved model,
// primary first, sharing o.Health. Nothing is dialled here.
func (o *Options) ProviderChain(mc *config.ModelConfig) (*providers.Chain, error) {
	o = o.withDefaults()
	cands := make([]providers.Candidate, 0, len(mc.Models))
	for i := range mc.Models {
		m := &mc.Models[i]
		client, err := providers.NewClient(&providers.ClientOptions{
			Name:             m.Provider,
			BaseURL:          m.BaseURL,
			APIKey:           m.APIKey,
			Timeout:          m.Timeout,
			FirstByteTimeout: m.FirstByteTimeout,
			AuthHeader:       m.AuthHeader,
			Style:            m.Style,
			Headers:          m.Headers,
			ExtraBody:        m.ExtraBody,
			Credential:       copilotCredential(m.Provider, m.APIKey, o.CopilotTokenURL),
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.Key, err)
		}
		cands = append(cands, providers.Candidate{Provider: m.Provider, Model: m.WireModel, Client: keyedTimeouts{client, m.TimeoutKey, firstByteKey(m)}, MaxRetries: m.MaxRetries})
	}
	return providers.NewChain(&providers.ChainOptions{
		Candidates: cands,
		Health:     o.Health,
		Logger:     o.Logger,
		ModelKey:   mc.ModelKey,
	})
}

// copilotCredential is devicelogin.CopilotCredential at tokenURL.
func copilotCredential(provider, key, tokenURL string) func(context.Context) (string, error) {
	return devicelogin.CopilotCredential(provider, key, &devicelogin.Options{CopilotTokenURL: tokenURL})
}

// agentSettingNames are the config keys the agent's replies name when a
// limit stops a turn or a command is not available.
var agentSettingNames = agent.SettingNames{
	Model:             "agents.defaults.model",
	MaxIterations:     "agents.defaults.max_tool_iterations",
	Timeout:           "agents.defaults.timeout",
	MaxSubagentDepth:  "agents.defaults.max_subagent_depth",
	Profiles:          "agents.profiles in config.json",
	MaxAnswerBytes:    "agents.defaults.max_answer_bytes",
	MaxMessageBytes:   "agents.defaults.max_message_bytes",
	MaxRefusedRepeats: "agents.defaults.max_refused_repeats",
}
