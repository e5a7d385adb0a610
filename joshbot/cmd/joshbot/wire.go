package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/devicelogin"
	"github.com/joshbot/joshbot/mcpclient"
	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/tools"
)

// wired is the set of parts one command needs to hold a conversation.
type wired struct {
	cfg      *config.Config
	home     string
	endpoint *config.Endpoint
	agent    *agent.Agent
	extras   *extras
	sessions *memory.Store
	memory   *memory.LongTerm
	// close stops what the tools left running (background shell jobs).
	close func()
	// mcp owns the MCP server processes; nil when none is enabled.
	mcp *mcpclient.Manager
}

// drainAgent waits for the agent's work after its replies (bookkeeping,
// learning, compaction) until ctx ends, then abandons the model requests
// still running and waits only for the disk writes. What is abandoned is
// redone after a later turn, so it is logged, not reported as an error.
func (a *app) drainAgent(ctx context.Context, ag *agent.Agent) {
	if err := ag.Shutdown(ctx); err != nil {
		a.log.Info("stopped without waiting for the model to finish learning or compacting; a later turn redoes it", "reason", err)
	}
}

// Close stops what the tools left running (background shell jobs) and
// stops and reaps every MCP server process. It is safe to call on a nil
// *wired and more than once.
func (w *wired) Close() error {
	if w == nil {
		return nil
	}
	if w.close != nil {
		w.close()
		w.close = nil
	}
	if w.mcp == nil {
		return nil
	}
	return w.mcp.Close()
}

// loadRuntime reads the config and wires the provider, tools, sessions and
// agent. Nothing here dials the network.
func (a *app) loadRuntime() (*wired, error) {
	cfgPath, home, err := a.paths()
	if err != nil {
		return nil, err
	}
	cfg, err := a.loadConfig(cfgPath)
	if err != nil {
		return nil, err
	}
	mc, err := cfg.ResolveModelConfig()
	if err != nil {
		return nil, fmt.Errorf("%w (config %s)", err, tildePath(cfgPath))
	}
	chain, err := a.providerChain(mc)
	if err != nil {
		return nil, err
	}
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
	tuner, err := bumpBudgets(cfg, home, a.log)
	if err != nil {
		return nil, err
	}
	closeTools, err := registerShellAndWeb(reg, cfg, home, ws, a.log)
	if err != nil {
		return nil, err
	}
	if reg, err = tuningTools(reg, tuner, a.log); err != nil {
		return nil, err
	}
	store, lt, err := openMemory(cfg, home, ws)
	if err != nil {
		return nil, err
	}
	if err := tools.RegisterMemorySearch(reg, lt); err != nil {
		return nil, err
	}
	if err := tools.RegisterSessionSearch(reg, store); err != nil {
		return nil, err
	}
	mcpm, withdrawals, err := startMCP(cfg, home, reg, a.log)
	if err != nil {
		return nil, err
	}
	a.mcp = mcpm
	d := cfg.Agents.Defaults
	opts := &agent.Options{
		Tools:     reg,
		Workspace: ws,
		Logger:    a.log,
		Requests: agent.RequestOptions{
			ProviderName:     ep.Provider,
			Temperature:      d.Temperature,
			MaxTokens:        d.MaxTokens,
			DisableStreaming: !d.Streaming,
			QuietFallback:    d.QuietFallback,
		},
		Limits: agent.LimitOptions{MaxIterations: d.MaxToolIterations, Timeout: d.Timeout.Std(), MaxAnswerBytes: d.MaxAnswerBytes},
		Memory: agent.MemoryOptions{
			LongTerm:            lt,
			CompactionThreshold: d.CompactionThreshold,
			DisableLearning:     d.Learning == "off",
			LearnShared:         d.LearnScope == "shared",
		},
		SettingNames: agentSettingNames,
	}
	ex, err := a.extendRuntime(cfgPath, home, ws, cfg, reg, opts)
	if err != nil {
		if mcpm != nil {
			mcpm.Close()
		}
		return nil, err
	}
	// Wrapping comes last so the tools registered above report progress
	// too.
	if a.wrapTools != nil {
		if reg, err = a.wrapTools(reg); err != nil {
			if mcpm != nil {
				mcpm.Close()
			}
			return nil, fmt.Errorf("tools: %w", err)
		}
		opts.Tools = reg
		// The wrapped copy is what the agent offers: a server revoked
		// from here on must leave it too.
		withdrawals.track(reg, a.wrapTools)
	}
	ag, err := agent.New(chain, ep.Model, store, opts)
	if err != nil {
		if mcpm != nil {
			mcpm.Close()
		}
		return nil, err
	}
	return &wired{cfg: cfg, home: home, endpoint: ep, agent: ag, extras: ex, sessions: store, memory: lt, close: closeTools, mcp: mcpm}, nil
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
	})
	if err != nil {
		return nil, nil, err
	}
	return store, lt, nil
}

// stored is what the commands that inspect sessions and memory need. They
// work without provider credentials, and without a config file at all
// (with the defaults), so an operator can always look at what is stored.
type stored struct {
	cfg      *config.Config
	home     string
	sessions *memory.Store
	memory   *memory.LongTerm
}

// loadStored reads the config, if any, without resolving credentials, and
// opens the session store and long-term memory.
func (a *app) loadStored() (*stored, error) {
	cfgPath, home, err := a.paths()
	if err != nil {
		return nil, err
	}
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
		return nil, fmt.Errorf("config %s: %w", tildePath(cfgPath), err)
	}
	ws, err := cfg.WorkspaceDir(home)
	if err != nil {
		return nil, err
	}
	store, lt, err := openMemory(cfg, home, ws)
	if err != nil {
		return nil, err
	}
	return &stored{cfg: cfg, home: home, sessions: store, memory: lt}, nil
}

// loadConfig loads the config with the run's --profile applied.
func (a *app) loadConfig(cfgPath string) (*config.Config, error) {
	if a.lenientConfig {
		cfg, fellBack, err := config.LoadLenient(cfgPath, &config.LoadOptions{Profile: a.profile})
		if fellBack != nil {
			a.log.Error("Config unusable, using defaults", "config", tildePath(cfgPath), "err", fellBack)
		}
		return cfg, err
	}
	return config.LoadWith(cfgPath, &config.LoadOptions{Profile: a.profile})
}

// providerChain builds the retry/fallback chain over every resolved model,
// primary first. Nothing is dialled here.
func (a *app) providerChain(mc *config.ModelConfig) (*providers.Chain, error) {
	if a.health == nil {
		a.health = providers.NewHealth(nil)
	}
	cands := make([]providers.Candidate, 0, len(mc.Models))
	for i := range mc.Models {
		m := &mc.Models[i]
		client, err := providers.NewClient(&providers.ClientOptions{
			Name:       m.Provider,
			BaseURL:    m.BaseURL,
			APIKey:     m.APIKey,
			Timeout:    m.Timeout,
			AuthHeader: m.AuthHeader,
			Style:      m.Style,
			Headers:    m.Headers,
			ExtraBody:  m.ExtraBody,
			Credential: copilotCredential(m.Provider, m.APIKey),
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.Key, err)
		}
		cands = append(cands, providers.Candidate{Provider: m.Provider, Model: m.WireModel, Client: keyedTimeouts{client, m.TimeoutKey}, MaxRetries: m.MaxRetries})
	}
	return providers.NewChain(&providers.ChainOptions{
		Candidates: cands,
		Health:     a.health,
		Logger:     a.log,
		ModelKey:   mc.ModelKey,
	})
}

// copilotTokenURL is where GitHub OAuth tokens are exchanged for Copilot
// API tokens; tests point it at a fake.
var copilotTokenURL = providers.CopilotTokenURL

// copilotCredential is devicelogin.CopilotCredential at copilotTokenURL.
func copilotCredential(provider, key string) func(context.Context) (string, error) {
	return devicelogin.CopilotCredential(provider, key, &devicelogin.Options{CopilotTokenURL: copilotTokenURL})
}

// agentSettingNames are the config keys the agent's replies name when a
// limit stops a turn or a command is not available.
var agentSettingNames = agent.SettingNames{
	Model:            "agents.defaults.model",
	MaxIterations:    "agents.defaults.max_tool_iterations",
	Timeout:          "agents.defaults.timeout",
	MaxSubagentDepth: "agents.defaults.max_subagent_depth",
	Profiles:         "agents.profiles in config.json",
	MaxAnswerBytes:   "agents.defaults.max_answer_bytes",
}
