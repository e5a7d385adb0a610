package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/cron"
	"github.com/joshbot/joshbot/joshbot/internal/onboard"
	"github.com/joshbot/joshbot/joshbot/internal/output"
	"github.com/joshbot/joshbot/joshbot/internal/report"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
)

func (a *app) statusCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "status",
		Short: "What joshbot runs with and what it has stored: model, channels, sessions, memory, MCP servers",
		Long: "status reads the config and the stored state and dials nothing: the model chain and\n" +
			"where each credential comes from, the channels, the number of sessions, the size of\n" +
			"long-term memory and the declared MCP servers. --output json gives one document.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.status(cmd) },
	}
	a.addProfileFlag(cmd)
	return cmd
}

// runtimeState fills in the workspace, shell confinement, turn timeout,
// cron jobs, skills and the last day's incidents. It only looks: a status
// check must not create the state it reports on.
func (a *app) runtimeState(ctx context.Context, doc *output.Status, cfg *config.Config, home string) {
	now := time.Now()
	if a.now != nil {
		now = a.now()
	}
	if ws, err := cfg.WorkspaceDir(home); err == nil {
		doc.Workspace = tildePath(ws)
	}
	_, doc.Shell = onboard.ShellConfinement(cfg, a.probeSandbox())
	d := cfg.Agents.Defaults
	timeout := d.Timeout.Std()
	if timeout <= 0 {
		timeout = agent.DefaultTimeout
	}
	doc.TurnTimeout = timeout.String()
	doc.Incidents = map[string]int{}
	if inc, err := runtime.OpenIncidents(home, a.log); err == nil {
		if d.HealTimeouts == "bump" {
			if h := agent.HealedTimeout(timeout, inc, now); h != timeout {
				doc.HealedTimeout = h.String()
			}
		}
		for k, n := range inc.CountSince(now.Add(-24 * time.Hour)) {
			if n > 0 {
				doc.Incidents[k] = n
			}
		}
	} else {
		doc.IncidentsError = err.Error()
	}
	if store, err := cron.OpenStore(filepath.Join(home, runtime.CronFile)); err == nil {
		if jobs, _ := store.List(ctx, ""); len(jobs) > 0 {
			doc.ScheduledJobs = len(jobs)
		}
	}
	if lib, err := a.skillLibrary(); err == nil {
		if all, err := lib.List(); err == nil {
			for _, s := range all {
				if s.Trusted {
					doc.SkillsUsable++
				} else {
					doc.SkillsPending++
				}
			}
		}
	}
}

func (a *app) status(cmd *cobra.Command) error {
	cfgPath, home, err := a.paths()
	if err != nil {
		return a.fail(err)
	}
	doc := &output.Status{
		SchemaVersion: output.SchemaVersion,
		Config:        tildePath(cfgPath),
		Profile:       a.profile,
		Models:        []output.PreflightModel{},
		Channels:      []output.ChannelStatus{},
		Providers:     []output.ProviderHealth{},
		MCPServers:    []output.MCPServerStatus{},
		Problems:      []output.Problem{},
	}
	// The strict load says whether joshbot would start; the stored state
	// is read even when it would not, from the file as written.
	cfg, err := a.loadConfig(cfgPath)
	if err != nil {
		doc.Problems = append(doc.Problems, problemOf(err, cfgPath))
		if cfg, err = config.Inspect(cfgPath); err != nil {
			if !errors.Is(err, config.ErrNotFound) {
				return a.fail(errors.New(tildeIn(err.Error(), cfgPath)))
			}
			cfg = config.Defaults()
		}
	}
	doc.Profile = cfg.Profile()
	mc, problems := cfg.ResolveAll()
	if mc != nil {
		for _, m := range mc.Models {
			doc.Models = append(doc.Models, report.ModelLine(m))
		}
	}
	if len(doc.Problems) == 0 {
		for _, p := range problems {
			doc.Problems = append(doc.Problems, problemOf(p, cfgPath))
		}
	}
	doc.Channels = append(doc.Channels, report.TelegramStatus(cfg))
	for _, name := range cfg.MCP.Names() {
		s := cfg.MCP.Servers[name]
		st := output.MCPServerStatus{Name: name, Enabled: s.IsEnabled(), Transport: "stdio", Target: s.Command}
		if s.URL != "" {
			st.Transport, st.Target = "http", config.Host(s.URL)
		}
		doc.MCPServers = append(doc.MCPServers, st)
	}
	if err := report.StoredState(doc, cfg, home); err != nil {
		return a.fail(err)
	}
	a.runtimeState(cmd.Context(), doc, cfg, home)
	if hd, err := runtime.ReadHealth(home); err == nil {
		doc.Providers = hd.Providers
		for _, run := range hd.MCPServers {
			for i := range doc.MCPServers {
				if m := &doc.MCPServers[i]; m.Name == run.Name {
					m.State, m.Restarts, m.RestartBudget, m.LastError, m.RetryAt = run.State, run.Restarts, run.RestartBudget, run.LastError, run.RetryAt
				}
			}
		}
	} else {
		doc.Problems = append(doc.Problems, output.Problem{Code: config.CodeUnresolvable, Key: runtime.HealthFile, Message: err.Error()})
	}
	doc.Ready = len(doc.Problems) == 0
	return output.Write(a.stdout, a.format, doc)
}

func (a *app) configureCommand() *cobra.Command {
	var list bool
	cmd := &cobra.Command{
		Use:   "configure",
		Short: "Show the effective settings (--list): each key, its value and where it comes from",
		Long: "configure --list prints every setting by its dotted key with the value joshbot uses and\n" +
			"its source: default, file or env (a JOSHBOT_ override). Credentials show as (set) or\n" +
			"(unset), never their value.",
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if !list {
				return errors.New("configure: pass --list to see the settings (edit config.json, or run `joshbot onboard`, to change them)")
			}
			return a.configureList()
		},
	}
	cmd.Flags().BoolVar(&list, "list", false, "list every setting with its value and source")
	return cmd
}

func (a *app) configureList() error {
	cfgPath, _, err := a.paths()
	if err != nil {
		return a.fail(err)
	}
	file := config.Defaults()
	var raw map[string]any
	data, err := os.ReadFile(cfgPath)
	switch {
	case err == nil:
		if file, err = config.Parse(cfgPath, data); err != nil {
			return a.fail(errors.New(tildeIn(err.Error(), cfgPath)))
		}
		if err := json.Unmarshal(data, &raw); err != nil {
			return a.fail(err)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return a.fail(fmt.Errorf("read config: %w", err))
	}
	settings, err := report.ConfigSettings(cfgPath, file, raw)
	if err != nil {
		return a.fail(err)
	}
	doc := &output.ConfigList{SchemaVersion: output.SchemaVersion, Config: tildePath(cfgPath), Settings: settings}
	return output.Write(a.stdout, a.format, doc)
}

func (a *app) authCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "auth",
		Short: "Credentials: where each provider's key comes from",
		Args:  cobra.NoArgs,
	}
	status := &cobra.Command{
		Use:   "status",
		Short: "For each configured provider: whether the model chain uses it, where its key comes from, whether it is present",
		Args:  cobra.NoArgs,
		RunE:  func(*cobra.Command, []string) error { return a.authStatus() },
	}
	a.addProfileFlag(status)
	cmd.AddCommand(status, a.authLoginCommand())
	return cmd
}

func (a *app) authStatus() error {
	cfgPath, _, err := a.paths()
	if err != nil {
		return a.fail(err)
	}
	cfg, err := config.Inspect(cfgPath)
	if err != nil {
		return a.fail(errors.New(tildeIn(err.Error(), cfgPath)))
	}
	doc := &output.AuthStatus{SchemaVersion: output.SchemaVersion, Config: tildePath(cfgPath), Providers: []output.AuthEntry{}, Problems: []output.Problem{}}
	used := map[string]output.Credential{}
	if _, lerr := a.loadConfig(cfgPath); lerr != nil {
		doc.Problems = append(doc.Problems, problemOf(lerr, cfgPath))
	}
	mc, problems := cfg.ResolveAll()
	if mc != nil {
		for _, m := range mc.Models {
			used[m.Provider] = output.Credential{Source: m.Credential.Kind, Variable: m.Credential.Variable}
		}
	}
	if len(doc.Problems) == 0 {
		for _, p := range problems {
			doc.Problems = append(doc.Problems, problemOf(p, cfgPath))
		}
	}
	doc.Providers = report.AuthEntries(cfg, used)
	return output.Write(a.stdout, a.format, doc)
}
