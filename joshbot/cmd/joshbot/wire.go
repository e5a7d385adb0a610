package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/joshbot/internal/config"
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
	sessions *memory.Store
	memory   *memory.LongTerm
}

// loadRuntime reads the config and wires the provider, tools, sessions and
// agent. Nothing here dials the network.
func (a *app) loadRuntime() (*wired, error) {
	cfgPath, home, err := a.paths()
	if err != nil {
		return nil, err
	}
	cfg, err := config.Load(cfgPath)
	if err != nil {
		return nil, err
	}
	ep, err := cfg.Endpoint()
	if err != nil {
		return nil, fmt.Errorf("%w (config %s)", err, tildePath(cfgPath))
	}
	client, err := providers.NewClient(&providers.ClientOptions{
		Name:    ep.Provider,
		BaseURL: ep.BaseURL,
		APIKey:  ep.APIKey,
		Timeout: ep.Timeout,
	})
	if err != nil {
		return nil, fmt.Errorf("providers.%s: %w", ep.Provider, err)
	}
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
	d := cfg.Agents.Defaults
	ag, err := agent.New(&agent.Options{
		Provider:         client,
		ProviderName:     ep.Provider,
		Model:            ep.Model,
		Tools:            reg,
		Sessions:         store,
		Workspace:        ws,
		MaxIterations:    d.MaxToolIterations,
		Timeout:          d.Timeout.Std(),
		Temperature:      d.Temperature,
		MaxTokens:        d.MaxTokens,
		DisableStreaming: !d.Streaming,
		Logger:           a.log,

		CompactionThreshold: d.CompactionThreshold,
		Memory:              lt,
		DisableLearning:     d.Learning == "off",
		LearnShared:         d.LearnScope == "shared",
	})
	if err != nil {
		return nil, err
	}
	return &wired{cfg: cfg, home: home, endpoint: ep, agent: ag, sessions: store, memory: lt}, nil
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
