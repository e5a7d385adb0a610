package cli

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/joshbot/internal/cmdutil"
	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/cron"
	"github.com/joshbot/joshbot/joshbot/internal/onboard"
	"github.com/joshbot/joshbot/joshbot/internal/output"
	"github.com/joshbot/joshbot/joshbot/internal/report"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
	"github.com/joshbot/joshbot/joshbot/internal/statecmd"
	"github.com/joshbot/joshbot/sandbox"
)

// statusOptions is what `joshbot status` runs with.
type statusOptions struct {
	IO         *cmdutil.Streams
	Paths      func() (cfgPath, home string, err error)
	LoadConfig func(cfgPath, profile string) (*config.Config, error)
	// RuntimeOptions gives the options start-up runs with, whose Check
	// says whether joshbot would start.
	RuntimeOptions func(profile string, o *runtime.Options) (*runtime.Options, error)
	Logger         func() *slog.Logger
	Now            func() time.Time
	Probe          func() sandbox.Report

	// Profile is --profile.
	Profile string
}

func newStatus(f *cmdutil.Factory) *cobra.Command { return newStatusCommand(f, runStatus) }

func newStatusCommand(f *cmdutil.Factory, runF func(context.Context, *statusOptions) error) *cobra.Command {
	opts := &statusOptions{IO: f.IO, Paths: f.Paths, LoadConfig: f.LoadConfig, RuntimeOptions: f.RuntimeOptions, Logger: f.Logger, Now: f.Now, Probe: f.Probe}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "What joshbot runs with and what it has stored: model, channels, sessions, memory, MCP servers",
		Long: "status reads the config and the stored state and dials nothing: the model chain and\n" +
			"where each credential comes from, the channels, the number of sessions, the size of\n" +
			"long-term memory and the declared MCP servers. --output json gives one document.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runF(cmd.Context(), opts) },
	}
	cmdutil.AddProfileFlag(cmd, &opts.Profile)
	return cmd
}

// runtimeState fills in the workspace, shell confinement, turn timeout,
// cron jobs, skills and the last day's incidents. It only looks: a status
// check must not create the state it reports on.
func runtimeState(ctx context.Context, opts *statusOptions, doc *output.Status, cfg *config.Config, home string) {
	now := opts.Now()
	if ws, err := cfg.WorkspaceDir(home); err == nil {
		doc.Workspace = tildePath(ws)
	}
	_, doc.Shell = onboard.ShellConfinement(cfg, opts.Probe())
	d := cfg.Agents.Defaults
	timeout := d.Timeout.Std()
	if timeout <= 0 {
		timeout = agent.DefaultTimeout
	}
	doc.TurnTimeout = timeout.String()
	doc.Incidents = map[string]int{}
	if inc, err := runtime.OpenIncidents(home, opts.Logger()); err == nil {
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
	if lib, err := statecmd.SkillLibrary(opts.Paths); err == nil {
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

func runStatus(ctx context.Context, opts *statusOptions) error {
	fail := func(err error) error { return cmdutil.Fail(opts.IO, opts.IO.Format, err) }
	cfgPath, home, err := opts.Paths()
	if err != nil {
		return fail(err)
	}
	doc := &output.Status{
		SchemaVersion: output.SchemaVersion,
		Config:        tildePath(cfgPath),
		Profile:       opts.Profile,
		Models:        []output.PreflightModel{},
		Channels:      []output.ChannelStatus{},
		Providers:     []output.ProviderHealth{},
		MCPServers:    []output.MCPServerStatus{},
		Problems:      []output.Problem{},
	}
	// Start-up's own validation says whether joshbot would start; the
	// stored state is read even when it would not, from the file as
	// written.
	ro, err := opts.RuntimeOptions(opts.Profile, nil)
	if err != nil {
		return fail(err)
	}
	checked := ro.Check()
	for _, p := range checked.Problems {
		doc.Problems = append(doc.Problems, problemOf(p, cfgPath))
	}
	cfg := checked.Config
	if cfg == nil {
		if cfg, err = config.Inspect(cfgPath); err != nil {
			if !errors.Is(err, config.ErrNotFound) {
				return fail(errors.New(cmdutil.TildeIn(err.Error(), cfgPath)))
			}
			cfg = config.Defaults()
		}
	}
	doc.Profile = cfg.Profile()
	mc := checked.Models
	if mc == nil {
		mc, _ = cfg.ResolveAll()
	}
	if mc != nil {
		for _, m := range mc.Models {
			doc.Models = append(doc.Models, report.ModelLine(m))
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
		return fail(err)
	}
	runtimeState(ctx, opts, doc, cfg, home)
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
	if err := output.Write(opts.IO.Out, opts.IO.Format, doc); err != nil {
		return err
	}
	if !doc.Ready {
		return cmdutil.ExitError{Code: 1}
	}
	return nil
}

// configureOptions is what `joshbot configure` runs with.
type configureOptions struct {
	pathsOptions
	LoadConfig func(cfgPath, profile string) (*config.Config, error)
	// List is --list, the one thing configure does today.
	List bool
	// Profile is --profile.
	Profile string
}

func newConfigure(f *cmdutil.Factory) *cobra.Command { return newConfigureCommand(f, runConfigureList) }

func newConfigureCommand(f *cmdutil.Factory, runF func(context.Context, *configureOptions) error) *cobra.Command {
	opts := &configureOptions{pathsOptions: pathsOptions{IO: f.IO, Paths: f.Paths}, LoadConfig: f.LoadConfig}
	cmd := &cobra.Command{
		Use:   "configure",
		Short: "Show the effective settings (--list): each key, its value and where it comes from",
		Long: "configure --list loads the config as start-up does (and fails where start-up fails) and\n" +
			"prints every settable key by its dotted name with the value joshbot uses and its source:\n" +
			"default, file, profile (the selected profile's model setup) or environment (a JOSHBOT_\n" +
			"override, or the variable an api_key_env names). Credentials show as (set) or (unset),\n" +
			"never their value.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !opts.List {
				return errors.New("configure: pass --list to see the settings (edit config.json, or run `joshbot onboard`, to change them)")
			}
			return runF(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.List, "list", false, "list every setting with its value and source")
	cmdutil.AddProfileFlag(cmd, &opts.Profile)
	return cmd
}

func runConfigureList(_ context.Context, opts *configureOptions) error {
	fail := func(err error) error { return cmdutil.Fail(opts.IO, opts.IO.Format, err) }
	cfgPath, _, err := opts.Paths()
	if err != nil {
		return fail(err)
	}
	var raw map[string]any
	var cfg *config.Config
	data, err := os.ReadFile(cfgPath)
	switch {
	case err == nil:
		// The load start-up runs: what it refuses, this refuses.
		if cfg, err = opts.LoadConfig(cfgPath, opts.Profile); err != nil {
			return fail(errors.New(cmdutil.TildeIn(err.Error(), cfgPath)))
		}
		if err := json.Unmarshal(data, &raw); err != nil {
			return fail(err)
		}
	case errors.Is(err, fs.ErrNotExist):
		// No file yet: the defaults, with the environment's overrides.
		cfg = config.Defaults()
		if err := config.ApplyEnv(cfg, os.Environ()); err != nil {
			return fail(err)
		}
		if err := cfg.Validate(); err != nil {
			return fail(err)
		}
	default:
		return fail(errorf("read config: %w", err))
	}
	settings := report.ConfigSettings(cfg, raw, os.Environ())
	doc := &output.ConfigList{SchemaVersion: output.SchemaVersion, Config: tildePath(cfgPath), Settings: settings}
	return output.Write(opts.IO.Out, opts.IO.Format, doc)
}

func newAuthCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "auth",
		Short: "Credentials: where each provider's key comes from",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newAuthStatusCmd(f, runAuthStatus), newAuthLoginCmd(f, runAuthLogin))
	return cmd
}

// authStatusOptions is what `auth status` runs with.
type authStatusOptions struct {
	IO         *cmdutil.Streams
	Paths      func() (cfgPath, home string, err error)
	LoadConfig func(cfgPath, profile string) (*config.Config, error)

	// Profile is --profile.
	Profile string
}

func newAuthStatusCmd(f *cmdutil.Factory, runF func(context.Context, *authStatusOptions) error) *cobra.Command {
	opts := &authStatusOptions{IO: f.IO, Paths: f.Paths, LoadConfig: f.LoadConfig}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "For each configured provider: whether the model chain uses it, where its key comes from, whether it is present",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return runF(cmd.Context(), opts) },
	}
	cmdutil.AddProfileFlag(cmd, &opts.Profile)
	return cmd
}

func runAuthStatus(_ context.Context, opts *authStatusOptions) error {
	fail := func(err error) error { return cmdutil.Fail(opts.IO, opts.IO.Format, err) }
	cfgPath, _, err := opts.Paths()
	if err != nil {
		return fail(err)
	}
	doc := &output.AuthStatus{SchemaVersion: output.SchemaVersion, Config: tildePath(cfgPath), Providers: []output.AuthEntry{}, Problems: []output.Problem{}}
	used := map[string]output.Credential{}
	// The credentials as start-up resolves them (api_key_env variables,
	// overrides); the file as written only when that load fails.
	cfg, lerr := opts.LoadConfig(cfgPath, opts.Profile)
	if lerr != nil {
		doc.Problems = append(doc.Problems, problemOf(lerr, cfgPath))
		if cfg, err = config.Inspect(cfgPath); err != nil {
			return fail(errors.New(cmdutil.TildeIn(err.Error(), cfgPath)))
		}
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
	return output.Write(opts.IO.Out, opts.IO.Format, doc)
}
