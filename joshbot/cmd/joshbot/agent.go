package main

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
	"github.com/joshbot/joshbot/joshbot/internal/termsafe"
	"github.com/joshbot/joshbot/sandbox"
)

// defaultSession is the session key of the command line's conversation.
const defaultSession = "cli:default"

func (a *app) agentCommand() *cobra.Command {
	var message, session string
	var resume bool
	cmd := &cobra.Command{
		Use:   "agent",
		Short: "Talk to the agent: one message with -m, or a conversation",
		Long: "With -m, runs one turn and prints the reply. Without it, starts a conversation:\n" +
			"type a message and press Enter; Ctrl-C stops a running answer; exit, quit or Ctrl-D leave.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("message") && isTerminal(a.stdin) && isTerminal(a.stdout) {
				a.wrapTools = progressTools // tool-progress lines in the line editor
			}
			rt, err := a.loadRuntime()
			if err != nil {
				return err
			}
			// Learning runs after each reply; let it finish before exit,
			// unless SIGTERM asks to stop.
			defer rt.Close()
			defer a.drainAgent(cmd.Context(), rt.agent)
			if resume {
				named := ""
				if cmd.Flags().Changed("session") {
					named = session
				}
				if session, err = a.continueSession(rt.sessions, named); err != nil {
					return err
				}
			}
			if cmd.Flags().Changed("message") {
				if strings.TrimSpace(message) == "" {
					return errors.New("-m/--message is empty: give the text to send")
				}
				return a.oneShot(cmd.Context(), rt, session, message)
			}
			return a.interactive(cmd.Context(), rt, session)
		},
	}
	cmd.Flags().StringVarP(&message, "message", "m", "", "send one message and print the reply")
	cmd.Flags().StringVarP(&session, "session", "s", defaultSession, "session key, channel:name")
	a.addProfileFlag(cmd)
	cmd.Flags().BoolVarP(&resume, "continue", "c", false, "continue the command line's most recent session, or the one --session names (a one-line recap goes to stderr)")
	return cmd
}

// oneShot runs one turn and prints the whole reply.
func (a *app) oneShot(ctx context.Context, rt *wired, session, text string) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	ctx = sandbox.WithApprover(ctx, a.oneShotApprover())
	reply, err := rt.agent.Process(ctx, agent.Request{SessionKey: session, Text: text, Channel: "cli"})
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
	fmt.Fprintf(a.stderr, "joshbot: %s\n", termsafe.Text(strings.TrimPrefix(err.Error(), "agent: ")))
	return exitError{code: 1}
}

func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
