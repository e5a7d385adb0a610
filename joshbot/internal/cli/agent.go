package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/joshbot/internal/redact"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
	"github.com/joshbot/joshbot/joshbot/internal/termsafe"
	"github.com/joshbot/joshbot/sandbox"
)

// defaultSession is the session key of the command line's conversation.
const defaultSession = "cli:default"

// agentOptions is what `joshbot agent` runs with.
type agentOptions struct {
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
}

func (a *app) agentCommand() *cobra.Command { return a.newAgentCommand(a.runAgent) }

// newAgentCommand wires the agent flags into agentOptions, refuses the
// combinations that make no sense, and hands the options to runF.
func (a *app) newAgentCommand(runF func(context.Context, *agentOptions) error) *cobra.Command {
	opts := &agentOptions{}
	cmd := &cobra.Command{
		Use:   "agent",
		Short: "Talk to the agent: one message with -m, or a conversation",
		Long: "With -m, runs one turn and prints the reply. Without it, starts a conversation:\n" +
			"type a message and press Enter; Ctrl-C stops a running answer; exit, quit or Ctrl-D leave.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.OneShot = cmd.Flags().Changed("message")
			opts.SessionSet = cmd.Flags().Changed("session")
			if opts.OneShot && strings.TrimSpace(opts.Message) == "" {
				return errors.New("-m/--message is empty: give the text to send")
			}
			return runF(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVarP(&opts.Message, "message", "m", "", "send one message and print the reply")
	cmd.Flags().StringVarP(&opts.Session, "session", "s", defaultSession, "session key, channel:name")
	a.addProfileFlag(cmd)
	cmd.Flags().BoolVarP(&opts.Continue, "continue", "c", false, "continue the command line's most recent session, or the one --session names (a one-line recap goes to stderr)")
	return cmd
}

// runAgent loads the runtime and runs one turn or a conversation.
func (a *app) runAgent(ctx context.Context, opts *agentOptions) error {
	ro := &runtime.Options{}
	if !opts.OneShot && isTerminal(a.stdin) && isTerminal(a.stdout) {
		ro.WrapTools = runtime.ProgressTools // tool-progress lines in the line editor
	}
	rt, err := a.loadRuntime(ctx, ro)
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
		if session, err = a.continueSession(rt.Sessions, named); err != nil {
			return err
		}
	}
	if opts.OneShot {
		return a.oneShot(ctx, rt, session, opts.Message)
	}
	return a.interactive(ctx, rt, session)
}

// oneShot runs one turn and prints the whole reply.
func (a *app) oneShot(ctx context.Context, rt *runtime.Runtime, session, text string) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	ctx = sandbox.WithApprover(ctx, a.oneShotApprover())
	reply, err := rt.Agent.Process(ctx, agent.Request{SessionKey: session, Text: text, Channel: "cli"})
	return a.report(reply, err, false)
}

// report prints a turn's outcome. A failure's reply explains itself to the
// user; the error goes to stderr as one line and the exit code is 1.
func (a *app) report(reply *agent.Reply, err error, streamed bool) error {
	// The model's words (and what it quotes of pages and files) never
	// reach the terminal with their control sequences live; see termsafe.
	if err == nil {
		if !streamed {
			fmt.Fprintln(a.stdout, termsafe.Text(reply.Text))
		}
		return nil
	}
	if reply != nil && (errors.Is(err, agent.ErrIterationLimit) || errors.Is(err, agent.ErrTurnTimeout)) {
		fmt.Fprintln(a.stdout, termsafe.Text(reply.Text))
	}
	if reply != nil && !streamed && errors.Is(err, agent.ErrNotSaved) {
		// The answer is real; only its keeping failed.
		fmt.Fprintln(a.stdout, termsafe.Text(reply.Text))
	}
	fmt.Fprintf(a.stderr, "joshbot: %s\n", termsafe.Text(redact.String(strings.TrimPrefix(err.Error(), "agent: "))))
	return exitError{code: 1}
}

func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
