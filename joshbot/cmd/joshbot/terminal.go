package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"golang.org/x/term"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/agent/commands"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
	"github.com/joshbot/joshbot/sandbox"
)

// keyReader reads standard input on one goroutine and hands out its bytes,
// so both the line editor and the approval prompt read from one place and
// a wait can give up on a context without losing the reader. It is safe
// for use by one reader at a time.
type keyReader struct {
	chunks chan []byte
	errc   chan error
	buf    []byte
	err    error
}

func newKeyReader(r io.Reader) *keyReader {
	k := &keyReader{chunks: make(chan []byte), errc: make(chan error, 1)}
	go func() {
		for {
			p := make([]byte, 256)
			n, err := r.Read(p)
			if n > 0 {
				k.chunks <- p[:n]
			}
			if err != nil {
				k.errc <- err
				return
			}
		}
	}()
	return k
}

func (k *keyReader) readByte(ctx context.Context) (byte, error) {
	for len(k.buf) == 0 {
		if k.err != nil {
			return 0, k.err
		}
		select {
		case p := <-k.chunks:
			k.buf = p
		case err := <-k.errc:
			k.err = err
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
	b := k.buf[0]
	k.buf = k.buf[1:]
	return b, nil
}

// readCookedLine reads one line while the terminal is in its normal
// (cooked) mode, where the kernel echoes and edits: the approval prompt
// asked in the middle of a turn uses it.
func (k *keyReader) readCookedLine(ctx context.Context) (string, error) {
	var line []byte
	for {
		b, err := k.readByte(ctx)
		if err != nil {
			if len(line) > 0 && errors.Is(err, io.EOF) {
				return string(line), nil
			}
			return "", err
		}
		if b == '\n' {
			return strings.TrimRight(string(line), "\r"), nil
		}
		line = append(line, b)
	}
}

// slashCommandNames lists what Tab completes at the prompt: the agent's
// command table and the commands the conversation loop itself handles.
func slashCommandNames() []string {
	out := []string{"/exit", "/quit"}
	for _, c := range commands.All() {
		out = append(out, "/"+c.Name)
	}
	return out
}

// interactiveTerminal is the conversation on a terminal: the line editor
// reads each message in raw mode, the terminal goes back to its normal
// mode while a turn runs (so Ctrl-C stops the answer and an approval
// prompt is typed as usual), and the answer streams with a line for each
// tool the agent calls.
func (a *app) interactiveTerminal(ctx context.Context, rt *runtime.Runtime, session string) error {
	in, out := a.stdin.(*os.File), a.stdout.(*os.File)
	fd := int(in.Fd())
	fmt.Fprintf(out, "joshbot (%s via %s). exit, quit or Ctrl-D to leave; Ctrl-C stops an answer; Alt-Enter adds a line.\n", rt.Endpoint.Model, rt.Endpoint.Provider)

	hist, err := loadHistory(filepath.Join(rt.Home, historyFile))
	if err != nil {
		a.log.Warn("prompt history unreadable; starting without it", "err", err)
	}
	keys := newKeyReader(in)
	ed := &editor{
		in:       keys,
		out:      out,
		history:  hist,
		complete: slashCommandNames,
		width: func() int {
			w, _, err := term.GetSize(int(out.Fd()))
			if err != nil {
				return 80
			}
			return w
		},
	}

	// During a turn the terminal is cooked, so Ctrl-C arrives as SIGINT
	// and stops the turn; at the prompt it arrives as a key.
	var turn runningTurn
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)
	go func() {
		for range sigs {
			turn.stop()
		}
	}()
	approver := approverFor(true, out, keys.readCookedLine)

	for {
		prompt := rt.Agent.Model(session) + "> "
		state, err := term.MakeRaw(fd)
		if err != nil {
			return fmt.Errorf("terminal raw mode: %w", err)
		}
		rawTerminal.Store(true)
		line, err := ed.readLine(ctx, prompt)
		rawTerminal.Store(false)
		if rerr := term.Restore(fd, state); rerr != nil {
			return fmt.Errorf("terminal restore: %w", rerr)
		}
		switch {
		case errors.Is(err, io.EOF), errors.Is(err, errInterrupted), ctx.Err() != nil:
			return nil
		case err != nil:
			return fmt.Errorf("read input: %w", err)
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
		streamed, midLine := false, false
		if rt.Config.Agents.Defaults.Streaming {
			turnCtx = agent.WithSink(turnCtx, func(ev agent.StreamEvent) {
				delta := ev.Delta
				switch {
				case ev.Notice != "":
					delta = ev.Notice + "\n"
				case ev.Err != nil:
					// Text already shown stays; the break is reported under it.
					delta = "\n[stream error: " + oneLine(ev.Err.Error()) + "]"
				}
				if delta != "" {
					streamed = true
					io.WriteString(out, delta)
					midLine = !strings.HasSuffix(delta, "\n")
				}
				if ev.Done && streamed && midLine {
					io.WriteString(out, "\n")
					midLine = false
				}
			})
		}
		turnCtx = runtime.WithProgress(turnCtx, func(tool, toolDetail string) {
			if midLine {
				io.WriteString(out, "\n")
				midLine = false
			}
			detail := ""
			if toolDetail != "" {
				detail = " " + printable(toolDetail)
			}
			fmt.Fprintf(out, "  · %s%s\n", tool, detail)
		})
		reply, err := rt.Agent.Process(turnCtx, agent.Request{SessionKey: session, Text: text, Channel: "cli"})
		turn.set(nil)
		cancel()
		if err != nil && errors.Is(err, context.Canceled) && ctx.Err() == nil {
			if midLine {
				io.WriteString(out, "\n")
			}
			fmt.Fprintln(a.stderr, "(stopped)")
			continue
		}
		// A person at a terminal keeps the conversation after a failure.
		_ = a.report(reply, err, streamed)
	}
}
