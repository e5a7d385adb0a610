package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/joshbot/joshbot/joshbot/internal/cmdutil"
	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/output"
	"github.com/joshbot/joshbot/joshbot/internal/redact"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
	"github.com/joshbot/joshbot/joshbot/internal/statecmd"
	"github.com/joshbot/joshbot/joshbot/internal/term"
	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/sandbox"
)

// Streams are the standard streams a command line runs with.
type Streams = cmdutil.Streams

// Main runs the command line args (without the program name) of the
// joshbot process with the streams s and returns the exit code. SIGTERM
// cancels a long command's context so it stops gracefully.
func Main(ctx context.Context, args []string, s *Streams) int {
	app := &app{stdin: s.In, stdout: s.Out, stderr: s.Err, catchTerm: true}
	return app.execute(ctx, args)
}

// run executes the command line args and returns the exit code. It is Main
// without the process's signal handling, so tests can drive it
// in-process.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	app := &app{stdin: stdin, stdout: stdout, stderr: stderr}
	return app.execute(ctx, args)
}

// execute runs the command line args and returns the exit code.
func (a *app) execute(ctx context.Context, args []string) int {
	stdin, stdout, stderr := a.stdin, a.stdout, a.stderr
	root := a.rootCommandFor(args)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if a.stopTerm != nil {
		a.stopTerm()
	}
	a.closeLog()
	if err == nil {
		return 0
	}
	var ee cmdutil.ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	fmt.Fprintf(stderr, "joshbot: %s\n", redact.String(err.Error()))
	return 1
}

// app is the process: the streams and the global flags (--config,
// --log-level, --output), which only the root command's flags and its
// PersistentPreRun set, the logger and log file, and SIGTERM handling. It
// builds the one [cmdutil.Factory] every command reaches the rest of the
// binary through (see factory); commands never see the app itself. The
// fields after health are test hooks.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer

	configPath string
	logLevel   string
	log        *slog.Logger
	logFile    *os.File // joshbot.log under the home; nil when not open

	// output is --output; io.Format is its parsed value.
	output string
	// io is the commands' streams; nil until factory builds them.
	io *cmdutil.Streams
	// health is shared by every provider chain of the process, so all
	// conversations learn from one another's failures.
	health *providers.Health
	// runtimeSeams, when set, adjusts every runtime's options before it
	// loads; tests use it to swap the sandbox or the Copilot token URL.
	runtimeSeams func(*runtime.Options)
	// probe, when set, replaces sandbox.Probe; tests use it to play a
	// system with or without a sandbox.
	probe func() sandbox.Report
	// now is the clock of dated outputs (the drift report); nil means
	// time.Now.
	now func() time.Time
	// sleep waits between device-login polls; nil means a real timer.
	sleep func(ctx context.Context, d time.Duration) error
	// catchTerm makes SIGTERM cancel the command's context (see
	// catchTermFor); stopTerm undoes it once the command has returned.
	catchTerm bool
	stopTerm  func()
	// termCaught, when set, waits until SIGTERM is caught (see
	// catchTermFor); the runtime calls it before it starts a process.
	termCaught func()
	// rawTerm is set while the line editor holds the terminal raw.
	rawTerm atomic.Bool
	// above prints log lines above the line editor's prompt.
	above term.Above
}

// quickCommand is the annotation of a command that neither starts a
// process nor runs long enough for SIGTERM to need a graceful path.
const quickCommand = "joshbot/quick"

// catchTermFor makes SIGTERM cancel cmd's context instead of killing the
// process, so MCP server processes are stopped and reaped on the way out.
// Commands that only print (version, help, shell completion) keep the
// default: the handler costs a goroutine and a thread at start-up.
func (a *app) catchTermFor(cmd *cobra.Command) {
	if !a.catchTerm || isQuick(cmd) {
		return
	}
	if cmd.Name() == "agent" && cmd.Parent() != nil && cmd.Parent().Parent() == nil && cmd.Flags().Changed("message") {
		// A one-shot turn registers SIGTERM while the runtime checks
		// its config; the runtime waits for it before it starts any
		// process (runtime.Options.BeforeStart).
		ctx, stop, wait := signals.catchSoon(cmd.Context(), syscall.SIGTERM)
		cmd.SetContext(ctx)
		a.stopTerm, a.termCaught = stop, wait
		return
	}
	ctx, stop := signals.catch(cmd.Context(), syscall.SIGTERM)
	cmd.SetContext(ctx)
	a.stopTerm = stop
}

// isQuick reports whether cmd is a quick command: annotated so, cobra's
// help, or shell completion.
func isQuick(cmd *cobra.Command) bool {
	for c := cmd; c != nil; c = c.Parent() {
		if c.Annotations[quickCommand] != "" {
			return true
		}
		if c.Parent() != nil && c.Parent().Parent() == nil && (c.Name() == "help" || c.Name() == "completion") {
			return true
		}
	}
	return cmd.Name() == cobra.ShellCompRequestCmd || cmd.Name() == cobra.ShellCompNoDescRequestCmd
}

func (a *app) rootCommand() *cobra.Command { return a.rootCommandFor(nil) }

// rootCommandFor builds the command tree that args need: when they name a
// top-level command, the root with only that command, since building the
// others (their flags, their subcommands) would only slow its start-up;
// otherwise (help, completion, an unknown or no command) the whole tree.
func (a *app) rootCommandFor(args []string) *cobra.Command {
	f := a.factory()
	root := &cobra.Command{
		Use:   "joshbot",
		Short: "A self-hosted personal AI agent",
		Long: "joshbot is a personal AI agent you run yourself. It thinks with any OpenAI-compatible\n" +
			"LLM provider, acts through tools confined to its workspace, and remembers conversations.\n\n" +
			"Start with `joshbot onboard`, then `joshbot agent`.",
		SilenceUsage:      true,
		SilenceErrors:     true,
		CompletionOptions: cobra.CompletionOptions{HiddenDefaultCmd: true},
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			a.catchTermFor(cmd)
			format, err := output.ParseFormat(a.output)
			if err != nil {
				return err
			}
			a.io.Format = format
			return a.setupLogging()
		},
	}
	root.PersistentFlags().StringVar(&a.configPath, "config", "", "config file (default $JOSHBOT_HOME/config.json, else ~/.joshbot/config.json)")
	root.PersistentFlags().StringVar(&a.logLevel, "log-level", "warn", "log level: debug, info, warn or error")
	root.PersistentFlags().StringVar(&a.output, "output", "text", "report format of the read-only commands (status, preflight, sessions list, ...): text or json")
	all := topCommands(f)
	name := commandName(root, args)
	for _, c := range all {
		if c.name == name {
			root.AddCommand(c.build())
			// Nor the completion command, which cobra would otherwise
			// build on every run; "completion" is no top-level command
			// here, so asking for it builds the whole tree.
			root.CompletionOptions.DisableDefaultCmd = true
			return root
		}
	}
	for _, c := range all {
		root.AddCommand(c.build())
	}
	return root
}

// namedCommand is a top-level command's name and its constructor.
type namedCommand struct {
	name  string
	build func() *cobra.Command
}

// topCommands lists every top-level command on the app's factory.
func (a *app) topCommands() []namedCommand { return topCommands(a.factory()) }

// topCommands lists every top-level command on f (help sorts them by
// name).
func topCommands(f *cmdutil.Factory) []namedCommand {
	on := func(build func(*cmdutil.Factory) *cobra.Command) func() *cobra.Command {
		return func() *cobra.Command { return build(f) }
	}
	return []namedCommand{
		{"version", on(newVersionCmd)}, {"onboard", on(newOnboard)}, {"agent", on(newAgent)},
		{"gateway", on(newGateway)}, {"serve", on(newServe)}, {"preflight", on(newPreflight)},
		{"profiles", on(newProfilesCmd)}, {"sessions", on(statecmd.NewSessionsCmd)}, {"memory", on(statecmd.NewMemoryCmd)},
		{"status", on(newStatus)}, {"configure", on(newConfigure)}, {"auth", on(newAuthCmd)},
		{"docs", on(newDocsCmd)}, {"tuning", on(statecmd.NewTuningCmd)}, {"mcp", on(statecmd.NewMCPCmd)},
		{"incidents", on(statecmd.NewIncidentsCmd)}, {"cron", on(statecmd.NewCronCmd)}, {"skills", on(statecmd.NewSkillsCmd)},
	}
}

// commandName returns the top-level command args name: their first
// argument that is neither a flag of root nor a flag's value. It returns
// "" when that is not certain: a flag root does not know (--help, a
// shorthand), or "--".
func commandName(root *cobra.Command, args []string) string {
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "--":
			return ""
		case strings.HasPrefix(arg, "--"):
			if strings.Contains(arg, "=") {
				continue
			}
			f := root.PersistentFlags().Lookup(arg[2:])
			if f == nil {
				return ""
			}
			if f.NoOptDefVal == "" {
				i++ // the flag's value
			}
		case strings.HasPrefix(arg, "-") && arg != "-":
			return ""
		default:
			return arg
		}
	}
	return ""
}

func (a *app) setupLogging() error {
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(a.logLevel)); err != nil {
		return errorf("--log-level %q: use debug, info, warn or error", a.logLevel)
	}
	// Every log line passes through redaction: a tool result or an error
	// can carry a credential, and the log must never hold one verbatim.
	// Lines go to stderr and, when the joshbot home exists, to
	// joshbot.log in it.
	var dst io.Writer = term.CRLFWriter{W: a.stderr, Raw: &a.rawTerm, Above: &a.above}
	if f := a.openLogFile(); f != nil {
		a.logFile = f
		dst = io.MultiWriter(term.CRLFWriter{W: a.stderr, Raw: &a.rawTerm, Above: &a.above}, f)
	}
	a.log = slog.New(slog.NewTextHandler(redact.NewWriter(dst), &slog.HandlerOptions{Level: lvl}))
	slog.SetDefault(a.log)
	return nil
}

// paths returns the config file and the state directory that holds
// sessions and the default workspace: the config file's own directory, so a
// --config elsewhere keeps all of its state beside it.
func (a *app) paths() (cfgPath, home string, err error) {
	if a.configPath != "" {
		p, err := filepath.Abs(a.configPath)
		if err != nil {
			return "", "", errorf("--config %q: %w", a.configPath, err)
		}
		return p, filepath.Dir(p), nil
	}
	home, err = config.Home()
	if err != nil {
		return "", "", err
	}
	return filepath.Join(home, "config.json"), home, nil
}

// tildePath shows p with the user's home directory as ~.
func tildePath(p string) string { return cmdutil.TildePath(p) }

// factory builds the commands' [cmdutil.Factory] on the app's streams,
// flags and seams. Its loaders read the global flags when called, which
// is after the root command has parsed them.
func (a *app) factory() *cmdutil.Factory {
	if a.io == nil {
		a.io = &cmdutil.Streams{In: a.stdin, Out: a.stdout, Err: a.stderr}
	}
	now, probe := a.now, a.probe
	if now == nil {
		now = time.Now
	}
	if probe == nil {
		probe = sandbox.Probe
	}
	return &cmdutil.Factory{
		IO:    a.io,
		Paths: a.paths,
		LoadConfig: func(cfgPath, profile string) (*config.Config, error) {
			return (&runtime.Options{ConfigPath: cfgPath, Profile: profile, Logger: a.log}).LoadConfig()
		},
		RuntimeOptions: a.runtimeOptions,
		LoadStored: func() (*runtime.Stored, error) {
			cfgPath, home, err := a.paths()
			if err != nil {
				return nil, err
			}
			return runtime.LoadStored(cfgPath, home)
		},
		Logger:  func() *slog.Logger { return a.log },
		Now:     now,
		Sleep:   a.sleep,
		Probe:   probe,
		RawTerm: &a.rawTerm,
		Above:   &a.above,
	}
}

// runtimeOptions returns o (nil: the defaults) completed with the run's
// global flags: the config, profile, the logger, and the provider health
// the process shares.
func (a *app) runtimeOptions(profile string, o *runtime.Options) (*runtime.Options, error) {
	cfgPath, home, err := a.paths()
	if err != nil {
		return nil, err
	}
	opts := runtime.Options{}
	if o != nil {
		opts = *o
	}
	opts.ConfigPath, opts.Home = cfgPath, home
	opts.Profile = profile
	opts.Logger = a.log
	opts.Stdout = a.stdout
	if a.health == nil {
		a.health = providers.NewHealth(nil)
	}
	opts.Health = a.health
	if a.termCaught != nil {
		opts.BeforeStart = a.termCaught
	}
	if a.runtimeSeams != nil {
		a.runtimeSeams(&opts)
	}
	return &opts, nil
}
