package runtime

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"sort"
	"time"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/configedit"
	"github.com/joshbot/joshbot/joshbot/internal/redact"
	"github.com/joshbot/joshbot/tools"
)

// State files under the joshbot home that the grown-up agent keeps.
const (
	// IncidentsFile is the incident log.
	IncidentsFile = "incidents.jsonl"
)

// OpenIncidents opens the incident log under home.
func OpenIncidents(home string, log *slog.Logger) (*agent.IncidentLog, error) {
	return agent.OpenIncidentLog(filepath.Join(home, IncidentsFile), &agent.IncidentLogOptions{Logger: log, Redact: redact.String})
}

// extend fills the agent options for slash commands, session
// preferences, incidents, timeout healing, profiles and subagents, and
// registers the message, send_file and subagent tools on reg.
func (o *Options) extend(rt *Runtime, ws string, reg *tools.Registry, opts *agent.Options) error {
	cfgPath, home, cfg := rt.ConfigPath, rt.Home, rt.Config
	out := &Outbox{cli: &CLIOutbox{W: o.Stdout}}
	rt.Outbox = out
	if err := tools.RegisterMessaging(reg, out, ws, messagingOptions(cfg)); err != nil {
		return err
	}
	if err := tools.RegisterConfig(reg, &configAccess{path: cfgPath}, out); err != nil {
		return err
	}
	if err := tools.RegisterSubagentProfiles(reg, &configAccess{path: cfgPath}, out, "agents.profiles"); err != nil {
		return err
	}
	if err := registerSkills(home, ws, reg, opts, o.Logger); err != nil {
		return err
	}
	d := cfg.Agents.Defaults
	if err := registerCron(home, reg, rt); err != nil {
		return err
	}
	inc, err := OpenIncidents(home, o.Logger)
	if err != nil {
		return err
	}
	rt.Incidents = inc
	opts.Hooks.Incidents = inc
	if d.HealTimeouts == "bump" {
		base := opts.Limits.Timeout
		if base <= 0 {
			base = agent.DefaultTimeout
		}
		healed := agent.HealedTimeout(base, inc, o.now())
		if healed != base {
			rt.Healed = healed - base
			o.Logger.Info("turn timeout raised after recent timeouts (agents.defaults.heal_timeouts)", "base", base, "timeout", healed)
		}
		opts.Limits.Timeout = healed
	}
	opts.Commands.ProviderStatus = rt.providerStatus
	opts.Commands.Personalities = loadPersonalities(ws, o.Logger)
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
				return err
			}
		}
	} else if d.MaxSubagentDepth >= 0 {
		if err := tools.RegisterSubagents(reg, nil); err != nil {
			return err
		}
	}
	return nil
}

// saveDefaultModel rewrites agents.defaults.model in the config file and
// nothing else; see configedit.SetFileKey for why the file's own JSON is
// edited.
func saveDefaultModel(cfgPath, model string) error {
	return configedit.SetFileKey(cfgPath, "agents.defaults.model", model)
}

// providerStatus is the provider part of /status: every provider with a
// failure on record in this process, or that all are healthy.
func (rt *Runtime) providerStatus() []string {
	snap := rt.Health.Snapshot()
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

// messagingOptions caps send_file per channel with the rule each channel's
// transport applies: a Telegram chat through a local Bot API server
// (channels.telegram.api_url) takes what that server takes.
func messagingOptions(cfg *config.Config) *tools.MessagingOptions {
	apiURL := cfg.Channels.Telegram.APIURL
	return &tools.MessagingOptions{MaxFileBytesFor: func(channel string) int64 {
		if channel == "telegram" {
			return channels.TelegramAttachmentLimitsFor(apiURL).File
		}
		return 0
	}}
}
