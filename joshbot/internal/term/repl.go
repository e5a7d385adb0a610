package term

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/term"

	"github.com/joshbot/joshbot/sandbox"

	"github.com/joshbot/joshbot/joshbot/internal/termsafe"
)

// ErrStopped is the cause of a turn's context when the person stopped the
// turn with Ctrl-C; see [Stopped].
var ErrStopped = errors.New("turn stopped at the terminal")

// Stopped reports whether ctx, a turn's context, was cancelled because the
// person pressed Ctrl-C, rather than because the whole conversation is
// ending.
func Stopped(ctx context.Context) bool {
	return errors.Is(context.Cause(ctx), ErrStopped)
}

// Turner runs one turn of a conversation. The REPL knows nothing of what a
// turn is; the command line implements this with the agent.
type Turner interface {
	// Turn runs the turn for t.Text with t.Approver as the shell approver,
	// shows its outcome, and returns its error. A turn the person stopped
	// ([Stopped] of ctx) returns its error without showing it: the REPL
	// says "(stopped)", and that the answer so far is kept when some of it
	// was shown. On piped input, a non-nil error ends the
	// conversation with that error, so a pipeline sees the failure.
	Turn(ctx context.Context, t *Turn) error
}

// Turn is one line the person entered, with what the turn may use.
type Turn struct {
	// Text is the line, trimmed; never empty.
	Text string
	// Approver asks before a shell command runs: the terminal prompt on a
	// terminal, sandbox.DenyAll on piped input.
	Approver sandbox.Approver
	// Live shows the answer as it is generated; nil on piped input, where
	// the Turner prints the whole reply at the end.
	Live *Live
}

// Options configures [Run]. The zero value reads piped input from a nil
// reader; set at least In and Out.
type Options struct {
	// In and Out are the conversation's input and output. On a terminal
	// (Terminal true) both must be *os.File.
	In  io.Reader
	Out io.Writer
	// Err receives "(stopped)"; nil means io.Discard.
	Err io.Writer
	// Terminal selects the terminal loop: the line editor reads each line
	// in raw mode with history and Tab completion, the terminal goes back
	// to its normal mode while a turn runs (so Ctrl-C stops the answer and
	// an approval prompt is typed as usual), the answer streams, and a
	// failed turn does not end the conversation. False reads plain lines
	// (piped or scripted input), where Ctrl-C at the prompt leaves.
	Terminal bool
	// Prompt returns the prompt shown before each line on a terminal; nil
	// means "> ".
	Prompt func() string
	// HistoryPath is the file of the prompt history; "" keeps history in
	// memory only.
	HistoryPath string
	// Complete lists the words Tab completes a leading "/word" from; nil
	// completes nothing.
	Complete func() []string
	// Raw, when not nil, holds true while the terminal is in raw mode; a
	// [CRLFWriter] reads it.
	Raw *atomic.Bool
	// Above, when not nil, is shared with the [CRLFWriter] of the log, so
	// that a line logged while the person types goes above the prompt,
	// which is drawn again below it.
	Above *Above
	// Logger receives warnings (an unreadable history); nil means
	// slog.Default().
	Logger *slog.Logger
	// Interrupts delivers Ctrl-C; nil means the process's SIGINT.
	Interrupts <-chan os.Signal
}

// Run holds a conversation: it reads a line, runs it as a turn with t, and
// repeats until input ends, the person types exit or quit (or /exit,
// /quit), presses Ctrl-D or Ctrl-C at the prompt, or ctx is done; all of
// these return nil. Ctrl-C during a turn stops only the turn.
func Run(ctx context.Context, t Turner, opts *Options) error {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Err == nil {
		o.Err = io.Discard
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Prompt == nil {
		o.Prompt = func() string { return "> " }
	}
	intr := o.Interrupts
	if intr == nil {
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, os.Interrupt)
		defer signal.Stop(sigs)
		intr = sigs
	}

	var src lineSource
	if o.Terminal {
		ts, err := newTerminalSource(&o)
		if err != nil {
			return err
		}
		src = ts
	} else {
		src = &pipedSource{feed: NewLineFeed(o.In)}
	}
	defer src.close()

	// Ctrl-C cancels the running turn; at the prompt of piped input it
	// leaves (on a terminal the prompt is raw, so Ctrl-C is a key there).
	var turn runningTurn
	quit := make(chan struct{})
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			select {
			case <-intr:
				if turn.stop() || o.Terminal {
					continue
				}
				close(quit)
				return
			case <-done:
				return
			}
		}
	}()

	for {
		line, err := src.next(ctx, quit)
		switch {
		case errors.Is(err, errQuit):
			fmt.Fprintln(o.Out)
			return nil
		case errors.Is(err, io.EOF), errors.Is(err, errInterrupted), ctx.Err() != nil:
			return nil
		case err != nil:
			return err
		}
		text := strings.TrimSpace(line)
		if text == "" {
			continue
		}
		if isExitCommand(text) {
			return nil
		}

		tr := &Turn{Text: text, Approver: src.approver()}
		if o.Terminal {
			tr.Live = &Live{out: o.Out}
		}
		turnCtx, cancel := context.WithCancelCause(ctx)
		turn.set(func() { cancel(ErrStopped) })
		err = t.Turn(turnCtx, tr)
		turn.set(nil)
		stopped := Stopped(turnCtx)
		cancel(nil)
		if err != nil && errors.Is(err, context.Canceled) && stopped {
			tr.Live.breakLine()
			if tr.Live.Streamed() {
				// The agent keeps what was shown as an interrupted answer.
				fmt.Fprintln(o.Err, "(stopped; the answer so far is kept)")
			} else {
				fmt.Fprintln(o.Err, "(stopped)")
			}
			continue
		}
		if err != nil && !o.Terminal {
			// Scripted input stops at the first failure so a pipeline sees
			// the exit code; a person at a terminal keeps the conversation.
			return err
		}
	}
}

// errQuit is what a piped source returns when Ctrl-C arrives at the prompt.
var errQuit = errors.New("quit")

// lineSource is where the REPL's lines come from.
type lineSource interface {
	// next returns the next line; errQuit when quit closes first.
	next(ctx context.Context, quit <-chan struct{}) (string, error)
	// approver is the approver of a turn.
	approver() sandbox.Approver
	close()
}

// pipedSource reads plain lines.
type pipedSource struct{ feed *LineFeed }

func (p *pipedSource) next(ctx context.Context, quit <-chan struct{}) (string, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go func() {
		select {
		case <-quit:
			cancel(errQuit)
		case <-ctx.Done():
		}
	}()
	line, err := p.feed.Read(ctx)
	switch {
	case err == nil:
		return line, nil
	case errors.Is(context.Cause(ctx), errQuit):
		return "", errQuit
	case errors.Is(err, io.EOF), ctx.Err() != nil:
		return "", err
	}
	return "", errorf("read input: %w", err)
}

// approver refuses at once: no person can be asked on piped input, so
// shell commands that need approval are denied rather than read from the
// script.
func (p *pipedSource) approver() sandbox.Approver { return sandbox.DenyAll }

func (p *pipedSource) close() { p.feed.Close() }

// terminalSource reads each line with the editor, in raw mode.
type terminalSource struct {
	o    *Options
	in   *os.File
	keys *keyReader
	ed   *editor
	appr sandbox.Approver
}

func newTerminalSource(o *Options) (*terminalSource, error) {
	in, ok := o.In.(*os.File)
	if !ok {
		return nil, errors.New("term: Options.Terminal needs In to be a terminal (*os.File)")
	}
	out, ok := o.Out.(*os.File)
	if !ok {
		return nil, errors.New("term: Options.Terminal needs Out to be a terminal (*os.File)")
	}
	hist, err := loadHistory(o.HistoryPath)
	if err != nil {
		o.Logger.Warn("prompt history unreadable; starting without it", "err", err)
	}
	keys := newKeyReader(in)
	ts := &terminalSource{o: o, in: in, keys: keys}
	ts.ed = &editor{
		in:       keys,
		out:      out,
		history:  hist,
		complete: o.Complete,
		above:    o.Above,
		width: func() int {
			w, _, err := term.GetSize(int(out.Fd()))
			if err != nil {
				return 80
			}
			return w
		},
	}
	ts.appr = NewApprover(out, keys.readCookedLine)
	return ts, nil
}

func (ts *terminalSource) next(ctx context.Context, _ <-chan struct{}) (string, error) {
	prompt := ts.o.Prompt()
	fd := int(ts.in.Fd())
	state, err := term.MakeRaw(fd)
	if err != nil {
		return "", errorf("terminal raw mode: %w", err)
	}
	ts.setRaw(true)
	line, err := ts.ed.readLine(ctx, prompt)
	ts.setRaw(false)
	if rerr := term.Restore(fd, state); rerr != nil {
		return "", errorf("terminal restore: %w", rerr)
	}
	switch {
	case err == nil, errors.Is(err, io.EOF), errors.Is(err, errInterrupted), ctx.Err() != nil:
		return line, err
	}
	return "", errorf("read input: %w", err)
}

func (ts *terminalSource) setRaw(on bool) {
	if ts.o.Raw != nil {
		ts.o.Raw.Store(on)
	}
}

func (ts *terminalSource) approver() sandbox.Approver { return ts.appr }

func (ts *terminalSource) close() { ts.keys.close() }

// Live shows an answer on the terminal as it is generated: the text as it
// streams, and a line for each tool the agent calls. The nil *Live shows
// nothing. It is not safe for concurrent use; a turn's events arrive in
// order.
type Live struct {
	out      io.Writer
	streamed bool // some text was shown
	midLine  bool // the last text shown did not end a line
	status   bool // a waiting status line is on the last row
	progress bool // the last line shown is a tool's line or note
}

// NewLive returns a Live that shows an answer on out, a terminal, for a
// turn run outside [Run] (a one-shot message).
func NewLive(out io.Writer) *Live { return &Live{out: out} }

// Delta shows a piece of the answer's text.
func (l *Live) Delta(s string) {
	if l == nil || s == "" {
		return
	}
	l.clearStatus()
	if l.progress {
		// One blank line sets the answer apart from the tool lines above.
		io.WriteString(l.out, "\n")
		l.progress = false
	}
	l.streamed = true
	// The model's words never reach the terminal with control sequences
	// live (see termsafe); chunk by chunk is enough.
	io.WriteString(l.out, termsafe.Text(s))
	l.midLine = !strings.HasSuffix(s, "\n")
}

// Done ends the streamed answer on a line of its own.
func (l *Live) Done() {
	l.clearStatus()
	if l != nil && l.streamed && l.midLine {
		io.WriteString(l.out, "\n")
		l.midLine = false
	}
}

// Tool shows a line for a tool call: its name and, when not empty, a
// detail such as the file it reads.
func (l *Live) Tool(name, detail string) {
	if l == nil {
		return
	}
	l.clearStatus()
	l.breakLine()
	if detail != "" {
		detail = " " + Printable(detail)
	}
	fmt.Fprintf(l.out, "  · %s%s\n", name, detail)
	l.progress = true
}

// Waiting shows, on a status line of its own, that the model has not
// begun answering a request sent d ago; the next event of the turn (or
// [Live.Done]) clears it in place.
func (l *Live) Waiting(d time.Duration) {
	if l == nil || d <= 0 {
		return
	}
	if !l.status {
		l.breakLine()
	}
	fmt.Fprintf(l.out, "\r\x1b[K⋯ waiting for the model (%ds)", int(d.Round(time.Second)/time.Second))
	l.status = true
}

// clearStatus erases the waiting status line, leaving the cursor at the
// start of its row.
func (l *Live) clearStatus() {
	if l != nil && l.status {
		io.WriteString(l.out, "\r\x1b[K")
		l.status = false
	}
}

// Note shows a line a running tool reported ("falling back to exa-mcp
// after exa failed"), indented under the tool's own line and marked
// apart from it.
func (l *Live) Note(name, text string) {
	if l == nil || text == "" {
		return
	}
	l.clearStatus()
	l.breakLine()
	fmt.Fprintf(l.out, "    ↳ %s: %s\n", Printable(name), Printable(text))
	l.progress = true
}

// Streamed reports whether any of the answer's text was shown, so the
// Turner does not print the reply a second time.
func (l *Live) Streamed() bool { return l != nil && l.streamed }

// breakLine ends a line of streamed text left open.
func (l *Live) breakLine() {
	l.clearStatus()
	if l != nil && l.midLine {
		io.WriteString(l.out, "\n")
		l.midLine = false
	}
}
