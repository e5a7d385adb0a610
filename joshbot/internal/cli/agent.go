package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync/atomic"

	"github.com/spf13/cobra"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/joshbot/internal/cmdutil"
	"github.com/joshbot/joshbot/joshbot/internal/redact"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
	"github.com/joshbot/joshbot/joshbot/internal/term"
	"github.com/joshbot/joshbot/joshbot/internal/termsafe"
	"github.com/joshbot/joshbot/sandbox"
)

// defaultSession is the session key of the command line's conversation.
const defaultSession = "cli:default"

// agentOptions is what `joshbot agent` runs with.
type agentOptions struct {
	IO          *cmdutil.Streams
	LoadRuntime func(ctx context.Context, profile string, o *runtime.Options) (*runtime.Runtime, error)
	Logger      func() *slog.Logger
	RawTerm     *atomic.Bool
	Above       *term.Above

	// Message is the one message to send when OneShot (-m was given);
	// otherwise the run is a conversation.
	Message string
	OneShot bool
	// Session is the session key. Continue continues the command line's
	// most recently updated session, or Session when SessionSet (--session
	// was given).
	Session    string
	SessionSet bool
	Continue   bool
	// Profile is --profile.
	Profile string
}

func newAgent(f *cmdutil.Factory) *cobra.Command { return newAgentCommand(f, runAgent) }

// newAgentCommand wires the agent flags into agentOptions, refuses the
// combinations that make no sense, and hands the options to runF.
func newAgentCommand(f *cmdutil.Factory, runF func(context.Context, *agentOptions) error) *cobra.Command {
	opts := &agentOptions{IO: f.IO, LoadRuntime: f.LoadRuntime, Logger: f.Logger, RawTerm: f.RawTerm, Above: f.Above}
	cmd := &cobra.Command{
		Use:   "agent",
		Short: "Talk to the agent: one message with -m, or a conversation",
		Long: "With -m, runs one turn and prints the reply (-m - reads the message from stdin, for\n" +
			"text longer than a command-line argument may be). Without it, starts a conversation:\n" +
			"type a message and press Enter; Ctrl-C stops a running answer; exit, quit or Ctrl-D leave.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.OneShot = cmd.Flags().Changed("message")
			opts.SessionSet = cmd.Flags().Changed("session")
			if opts.OneShot && opts.Message == "-" {
				// -m - reads the message from stdin: the OS limits one
				// argument to about 128 kB, a pipe has no such limit.
				data, err := io.ReadAll(opts.IO.In)
				if err != nil {
					return fmt.Errorf("-m -: read the message from stdin: %w", err)
				}
				if strings.TrimSpace(string(data)) == "" {
					return errors.New("-m -: stdin is empty: pipe the text to send, as in `joshbot agent -m - < notes.txt`")
				}
				opts.Message = strings.TrimRight(string(data), "\r\n")
			}
			if opts.OneShot && strings.TrimSpace(opts.Message) == "" {
				return errors.New("-m/--message is empty: give the text to send")
			}
			return runF(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVarP(&opts.Message, "message", "m", "", "send one message and print the reply; - reads it from stdin")
	cmd.Flags().StringVarP(&opts.Session, "session", "s", defaultSession, "session key, channel:name")
	cmdutil.AddProfileFlag(cmd, &opts.Profile)
	cmd.Flags().BoolVarP(&opts.Continue, "continue", "c", false, "continue the command line's most recent session, or the one --session names (a one-line recap goes to stderr)")
	return cmd
}

// runAgent loads the runtime and runs one turn or a conversation.
func runAgent(ctx context.Context, opts *agentOptions) error {
	// A conversation keeps its confined shell's next helper started
	// ahead. One turn does not: most turns run no command, and starting a
	// helper for nothing cost a one-shot turn more than it saved one that
	// ran a command (sandbox/CHANGELOG.md).
	ro := &runtime.Options{Prestart: !opts.OneShot}
	if opts.OneShot {
		// oneShot catches Ctrl-C; its registration, a round trip to the
		// runtime's signal thread, runs while the runtime loads.
		signals.prepare(os.Interrupt)
	}
	if !opts.OneShot && isTerminal(opts.IO.In) && isTerminal(opts.IO.Out) {
		ro.WrapTools = runtime.ProgressTools // tool-progress lines in the line editor
	}
	rt, err := opts.LoadRuntime(ctx, opts.Profile, ro)
	if err != nil {
		return err
	}
	// Learning runs after each reply; let it finish before exit, unless
	// SIGTERM asks to stop.
	defer rt.Close()
	defer rt.Drain(ctx)
	session := opts.Session
	if opts.Continue {
		named := ""
		if opts.SessionSet {
			named = opts.Session
		}
		if session, err = continueSession(opts.IO.Err, rt.Sessions, named); err != nil {
			return err
		}
	}
	if opts.OneShot {
		return oneShot(ctx, opts.IO, rt, session, opts.Message)
	}
	return interactive(ctx, opts, rt, session)
}

// oneShot runs one turn and shows its reply: streamed on a terminal,
// printed whole otherwise.
func oneShot(ctx context.Context, io *cmdutil.Streams, rt *runtime.Runtime, session, text string) error {
	ctx, stop := signals.catch(ctx, os.Interrupt)
	defer stop()
	ctx = sandbox.WithApprover(ctx, oneShotApprover(io))
	var live *term.Live
	if isTerminal(io.Out) {
		// On a terminal the answer streams as it is written; piped, the
		// whole reply is printed once.
		live = term.NewLive(io.Out)
		ctx = withLiveSink(ctx, rt, live)
	}
	rt.ReleaseStartupCode()
	reply, err := rt.Agent.Process(ctx, agent.Request{SessionKey: session, Text: text, Channel: "cli"})
	live.Done()
	return reportTurn(io, reply, err, live.Streamed())
}

// reportTurn prints a turn's outcome. A failure's reply explains itself to the
// user; the error goes to stderr as one line and the exit code is 1.
func reportTurn(io *cmdutil.Streams, reply *agent.Reply, err error, streamed bool) error {
	// The model's words (and what it quotes of pages and files) never
	// reach the terminal with their control sequences live; see termsafe.
	if err == nil {
		if !streamed {
			fmt.Fprintln(io.Out, termsafe.Text(reply.Text))
		}
		return nil
	}
	if reply != nil && (errors.Is(err, agent.ErrIterationLimit) || errors.Is(err, agent.ErrTurnTimeout)) {
		fmt.Fprintln(io.Out, termsafe.Text(reply.Text))
	}
	if reply != nil && !streamed && errors.Is(err, agent.ErrNotSaved) {
		// The answer is real; only its keeping failed.
		fmt.Fprintln(io.Out, termsafe.Text(reply.Text))
	}
	fmt.Fprintf(io.Err, "joshbot: %s\n", termsafe.Text(redact.String(strings.TrimPrefix(err.Error(), "agent: "))))
	return cmdutil.ExitError{Code: 1}
}

func isTerminal(v any) bool { return cmdutil.IsTerminal(v) }
