package main

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"time"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/cron"
	"github.com/joshbot/joshbot/joshbot/internal/redact"
	"github.com/joshbot/joshbot/tools"
)

// State files under the joshbot home that the grown-up agent keeps.
const (
	incidentsFile = "incidents.jsonl"
)

// extras are the parts wired beside the agent that commands other than a
// conversation also read (status, incidents).
type extras struct {
	incidents *agent.IncidentLog
	// healed is how much heal_timeouts added to the turn timeout.
	healed time.Duration
	// cron is the scheduled-job store the cron tool writes to.
	cron *cron.Store
	// outbox delivers the message tools' output; the gateway attaches its
	// bus to it.
	outbox *routedOutbox
}

// openIncidents opens the incident log under home.
func (a *app) openIncidents(home string) (*agent.IncidentLog, error) {
	return agent.OpenIncidentLog(filepath.Join(home, incidentsFile), &agent.IncidentLogOptions{Logger: a.log, Redact: redact.String})
}

// extendRuntime fills the agent options for slash commands, session
// preferences, incidents, timeout healing, profiles and subagents, and
// registers the message, send_file and subagent tools on reg.
func (a *app) extendRuntime(cfgPath, home, ws string, cfg *config.Config, reg *tools.Registry, opts *agent.Options) (*extras, error) {
	ex := &extras{}
	out := &routedOutbox{cli: &cliOutbox{w: a.stdout}}
	ex.outbox = out
	if err := tools.RegisterMessaging(reg, out, ws, nil); err != nil {
		return nil, err
	}
	if err := tools.RegisterConfig(reg, &configAccess{path: cfgPath}, out); err != nil {
		return nil, err
	}
	if err := a.registerSkills(home, ws, reg, opts); err != nil {
		return nil, err
	}
	d := cfg.Agents.Defaults
	if err := registerCron(home, reg, ex); err != nil {
		return nil, err
	}
	inc, err := a.openIncidents(home)
	if err != nil {
		return nil, err
	}
	ex.incidents = inc
	opts.Hooks.Incidents = inc
	if d.HealTimeouts == "bump" {
		base := opts.Limits.Timeout
		if base <= 0 {
			base = agent.DefaultTimeout
		}
		healed := agent.HealedTimeout(base, inc, time.Now())
		if healed != base {
			ex.healed = healed - base
			a.log.Info("turn timeout raised after recent timeouts (agents.defaults.heal_timeouts)", "base", base, "timeout", healed)
		}
		opts.Limits.Timeout = healed
	}
	opts.Commands.ProviderStatus = a.providerStatus
	opts.Commands.Personalities = a.loadPersonalities(ws)
	opts.Limits.RepeatLimit = d.RepeatLimit
	opts.Limits.MaxSubagentDepth = d.MaxSubagentDepth
	opts.Commands.SaveGlobalModel = func(_ context.Context, model string) error {
		return saveDefaultModel(cfgPath, model)
	}
	if len(cfg.Agents.Profiles) > 0 {
		opts.Commands.Profiles = make(map[string]agent.Profile, len(cfg.Agents.Profiles))
		descs := make(map[string]string, len(cfg.Agents.Profiles))
		for n, pr := range cfg.Agents.Profiles {
			opts.Commands.Profiles[n] = agent.Profile{Description: pr.Description, Model: pr.Model, Tools: pr.Tools, Prompt: pr.Prompt, MaxIterations: pr.MaxIterations}
			descs[n] = pr.Description
			if descs[n] == "" {
				descs[n] = "no description"
			}
			if pr.Model != "" {
				opts.Commands.ModelChoices = append(opts.Commands.ModelChoices, pr.Model)
			}
		}
		sort.Strings(opts.Commands.ModelChoices)
		if d.MaxSubagentDepth >= 0 {
			if err := tools.RegisterSubagents(reg, &tools.SubagentOptions{Profiles: descs}); err != nil {
				return nil, err
			}
		}
	} else if d.MaxSubagentDepth >= 0 {
		if err := tools.RegisterSubagents(reg, nil); err != nil {
			return nil, err
		}
	}
	return ex, nil
}

// saveDefaultModel rewrites agents.defaults.model in the config file and
// nothing else; see config.SetFileKey for why the file's own JSON is
// edited.
func saveDefaultModel(cfgPath, model string) error {
	return config.SetFileKey(cfgPath, "agents.defaults.model", model)
}

// providerStatus is the provider part of /status: every provider with a
// failure on record in this process, or that all are healthy.
func (a *app) providerStatus() []string {
	if a.health == nil {
		return nil
	}
	snap := a.health.Snapshot()
	if len(snap) == 0 {
		return []string{"Providers: no failures recorded"}
	}
	out := make([]string, 0, len(snap))
	for _, h := range snap {
		line := fmt.Sprintf("Provider %s: %d consecutive failures", h.Provider, h.ConsecutiveFailures)
		if h.Cooldown > 0 {
			line += fmt.Sprintf(", cooling down %s", h.Cooldown.Round(time.Second))
		}
		if h.LastError != "" {
			line += "; last: " + redact.String(h.LastError)
		}
		out = append(out, line)
	}
	return out
}
