package main

import (
	"fmt"
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
	extras   *extras
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
	store, err := memory.NewStore(filepath.Join(home, "sessions"))
	if err != nil {
		return nil, err
	}
	d := cfg.Agents.Defaults
	opts := &agent.Options{
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
	}
	ex, err := a.extendRuntime(cfgPath, home, ws, cfg, reg, opts)
	if err != nil {
		return nil, err
	}
	ag, err := agent.New(opts)
	if err != nil {
		return nil, err
	}
	return &wired{cfg: cfg, home: home, endpoint: ep, agent: ag, extras: ex}, nil
}
