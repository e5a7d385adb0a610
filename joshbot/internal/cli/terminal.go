package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/agent/commands"
	"github.com/joshbot/joshbot/joshbot/internal/cmdutil"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
	"github.com/joshbot/joshbot/joshbot/internal/term"
	"github.com/joshbot/joshbot/sandbox"
)

// slashCommandNames lists what Tab completes at the prompt: the agent's
// command table and the commands the conversation loop itself handles.
func slashCommandNames() []string {
	out := []string{"/exit", "/quit"}
	for _, c := range commands.All() {
		out = append(out, "/"+c.Name)
	}
	return out
}

// interactive holds a conversation on stdin/stdout with term.Run. When both
// are terminals the line editor reads each message and the answer streams
// with a line for each tool the agent calls; otherwise (piped or scripted
// input) output is the same as the one-shot path, line for line.
func interactive(ctx context.Context, opts *agentOptions, rt *runtime.Runtime, session string) error {
	io := opts.IO
	terminal := isTerminal(io.In) && isTerminal(io.Out)
	if terminal {
		fmt.Fprintf(io.Out, "joshbot (%s via %s). exit, quit or Ctrl-D to leave; Ctrl-C stops an answer; Alt-Enter adds a line.\n", rt.Endpoint.Model, rt.Endpoint.Provider)
	} else {
		stopHeartbeat := rt.StartHeartbeat(ctx)
		defer stopHeartbeat()
	}
	return term.Run(ctx, &cliTurner{io: io, rt: rt, session: session}, &term.Options{
		In: io.In, Out: io.Out, Err: io.Err,
		Terminal:    terminal,
		Prompt:      func() string { return rt.Agent.Model(session) + "> " },
		HistoryPath: filepath.Join(rt.Home, term.HistoryFile),
		Complete:    slashCommandNames,
		Raw:         opts.RawTerm,
		Above:       opts.Above,
		Logger:      opts.Logger(),
	})
}

// cliTurner runs a conversation's turns with the agent.
type cliTurner struct {
	io      *cmdutil.Streams
	rt      *runtime.Runtime
	session string
}

// Turn runs one turn and reports it as the one-shot path does.
func (c *cliTurner) Turn(ctx context.Context, t *term.Turn) error {
	ctx = sandbox.WithApprover(ctx, t.Approver)
	if t.Live != nil {
		ctx = withLiveSink(ctx, c.rt, t.Live)
		ctx = runtime.WithProgress(ctx, t.Live.Tool)
	}
	reply, err := c.rt.Agent.Process(ctx, agent.Request{SessionKey: c.session, Text: t.Text, Channel: "cli"})
	if err != nil && errors.Is(err, context.Canceled) && term.Stopped(ctx) {
		return err
	}
	return reportTurn(c.io, reply, err, t.Live.Streamed())
}

// withLiveSink streams the turn's answer into live when the config
// streams.
func withLiveSink(ctx context.Context, rt *runtime.Runtime, live *term.Live) context.Context {
	if !rt.Config.Agents.Defaults.Streaming {
		// Answers do not stream, but a running tool's notes show.
		return agent.WithSink(ctx, func(ev agent.StreamEvent) {
			if ev.Tool != nil && ev.Tool.Note != "" {
				live.Note(ev.Tool.Name, ev.Tool.Note)
			}
		})
	}
	return agent.WithSink(ctx, func(ev agent.StreamEvent) {
		if ev.Tool != nil && ev.Tool.Note != "" {
			live.Note(ev.Tool.Name, ev.Tool.Note)
			return
		}
		if ev.Waiting > 0 {
			// A status line until the model begins.
			live.Waiting(ev.Waiting)
			return
		}
		delta := ev.Delta
		switch {
		case ev.Notice != "":
			delta = ev.Notice + "\n"
		case ev.Err != nil:
			// Text already shown stays; the break is reported under it.
			delta = "\n[stream error: " + strings.Join(strings.Fields(ev.Err.Error()), " ") + "]"
		}
		live.Delta(delta)
		if ev.Done {
			live.Done()
		}
	})
}

// oneShotApprover is the shell approver of `agent -m`: a prompt on stderr
// read from stdin when both are a terminal, a refusal otherwise.
func oneShotApprover(io *cmdutil.Streams) sandbox.Approver {
	return term.ApproverFor(isTerminal(io.In) && isTerminal(io.Err), io.Err, term.NewLineFeed(io.In).Read)
}
