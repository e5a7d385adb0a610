package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
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
			ro := &runtime.Options{}
			if !cmd.Flags().Changed("message") && isTerminal(a.stdin) && isTerminal(a.stdout) {
				ro.WrapTools = runtime.ProgressTools // tool-progress lines in the line editor
			}
			rt, err := a.loadRuntime(cmd.Context(), ro)
			if err != nil {
				return err
			}
			// Learning runs after each reply; let it finish before exit,
			// unless SIGTERM asks to stop.
			defer rt.Close()
			defer rt.Drain(cmd.Context())
			if resume {
				if cmd.Flags().Changed("session") {
					return errors.New("--continue picks the most recent session itself: drop --session, or drop --continue")
				}
				if session, err = a.continueSession(rt.Sessions); err != nil {
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
	cmd.Flags().BoolVarP(&resume, "continue", "c", false, "continue the most recently updated session (a one-line recap goes to stderr)")
	return cmd
}

// oneShot runs one turn and prints the whole reply.
func (a *app) oneShot(ctx context.Context, rt *runtime.Runtime, session, text string) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	ctx = sandbox.WithApprover(ctx, approverFor(isTerminal(a.stdin) && isTerminal(a.stderr), a.stderr, newLineFeed(a.stdin).read))
	reply, err := rt.Agent.Process(ctx, agent.Request{SessionKey: session, Text: text, Channel: "cli"})
	return a.report(reply, err, false)
}

// report prints a turn's outcome. A failure's reply explains itself to the
// user; the error goes to stderr as one line and the exit code is 1.
func (a *app) report(reply *agent.Reply, err error, streamed bool) error {
	if err == nil {
		if !streamed {
			fmt.Fprintln(a.stdout, reply.Text)
		}
		return nil
	}
	if reply != nil && (errors.Is(err, agent.ErrIterationLimit) || errors.Is(err, agent.ErrTurnTimeout)) {
		fmt.Fprintln(a.stdout, reply.Text)
	}
	fmt.Fprintf(a.stderr, "joshbot: %s\n", strings.TrimPrefix(err.Error(), "agent: "))
	return exitError{code: 1}
}

// interactive holds a conversation on stdin/stdout. When both are
// terminals the answer streams as it is generated; otherwise output is the
// same as the one-shot path, line for line.
func (a *app) interactive(ctx context.Context, rt *runtime.Runtime, session string) error {
	if isTerminal(a.stdin) && isTerminal(a.stdout) {
		return a.interactiveTerminal(ctx, rt, session)
	}
	// Piped or scripted input: a plain line loop, whose output is the same
	// as the one-shot path, line for line.

	stopHeartbeat := rt.StartHeartbeat(ctx)
	defer stopHeartbeat()

	// Ctrl-C cancels the running turn; at the prompt it leaves.
	var turn runningTurn
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)
	quit := make(chan struct{})
	go func() {
		for range sigs {
			if turn.stop() {
				continue
			}
			close(quit)
			return
		}
	}()

	lines := make(chan string)
	readErr := make(chan error, 1)
	go func() {
		r := bufio.NewReader(a.stdin)
		for {
			line, err := r.ReadString('\n')
			if line != "" || err == nil {
				lines <- strings.TrimRight(line, "\r\n")
			}
			if err != nil {
				readErr <- err
				return
			}
		}
	}()

	// No human can be asked on piped input, so shell commands that need
	// approval are refused at once rather than read from the script.
	approver := sandbox.DenyAll

	for {
		var line string
		select {
		case line = <-lines:
		case err := <-readErr:
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("read input: %w", err)
		case <-quit:
			fmt.Fprintln(a.stdout)
			return nil
		case <-ctx.Done():
			return nil
		}
		text := strings.TrimSpace(line)
		if text == "" {
			continue
		}
		if isExitCommand(text) {
			return nil
		}

		turnCtx, cancel := context.WithCancel(ctx)
		turnCtx = sandbox.WithApprover(turnCtx, approver)
		turn.set(cancel)
		reply, err := rt.Agent.Process(turnCtx, agent.Request{SessionKey: session, Text: text, Channel: "cli"})
		turn.set(nil)
		cancel()
		if err != nil && errors.Is(err, context.Canceled) && ctx.Err() == nil {
			fmt.Fprintln(a.stderr, "(stopped)")
			continue
		}
		if rerr := a.report(reply, err, false); rerr != nil {
			// Scripted input stops at the first failure so a pipeline sees
			// the exit code.
			return rerr
		}
	}
}

func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
