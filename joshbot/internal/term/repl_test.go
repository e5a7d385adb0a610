package term

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/joshbot/joshbot/sandbox"
)

// turnFunc adapts a function to Turner.
type turnFunc func(ctx context.Context, t *Turn) error

func (f turnFunc) Turn(ctx context.Context, t *Turn) error { return f(ctx, t) }

// recorder is a Turner that records the lines it ran.
type recorder struct {
	mu    sync.Mutex
	texts []string
	fail  map[string]error
}

func (r *recorder) Turn(ctx context.Context, t *Turn) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.texts = append(r.texts, t.Text)
	if d, _ := t.Approver.Approve(ctx, &sandbox.ApprovalRequest{Command: "ls", Dir: "/"}); d != sandbox.Deny || t.Live != nil {
		return errors.New("piped turn got an approver that does not deny at once, or live output")
	}
	return r.fail[t.Text]
}

func TestRunPipedLines(t *testing.T) {
	boom := errors.New("turn failed")
	for _, tt := range []struct {
		name    string
		input   string
		fail    map[string]error
		want    []string
		wantErr error
	}{
		{name: "until end of input", input: "one\n\n  two  \r\nthree", want: []string{"one", "two", "three"}},
		{name: "exit", input: "one\nexit\ntwo\n", want: []string{"one"}},
		{name: "quit", input: "quit\ntwo\n", want: nil},
		{name: "/exit", input: "one\n/exit\n", want: []string{"one"}},
		{name: "/quit", input: " /quit \none\n", want: nil},
		{name: "failure ends a script", input: "one\nbad\nthree\n", fail: map[string]error{"bad": boom}, want: []string{"one", "bad"}, wantErr: boom},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := &recorder{fail: tt.fail}
			var out strings.Builder
			err := Run(context.Background(), r, &Options{In: strings.NewReader(tt.input), Out: &out, Interrupts: make(chan os.Signal)})
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if strings.Join(r.texts, "|") != strings.Join(tt.want, "|") {
				t.Fatalf("turns %q, want %q", r.texts, tt.want)
			}
			if out.String() != "" {
				t.Fatalf("the REPL wrote %q", out.String())
			}
		})
	}
}

// TestRunInterruptStopsTheTurn: Ctrl-C during a turn cancels only that
// turn, with ErrStopped as the cause; the REPL says "(stopped)" and reads
// the next line.
func TestRunInterruptStopsTheTurn(t *testing.T) {
	intr := make(chan os.Signal, 1)
	var texts []string
	turner := turnFunc(func(ctx context.Context, tr *Turn) error {
		texts = append(texts, tr.Text)
		if tr.Text != "long" {
			return nil
		}
		intr <- os.Interrupt
		select {
		case <-ctx.Done():
		case <-time.After(10 * time.Second):
			return errors.New("the turn was not stopped")
		}
		if !Stopped(ctx) {
			return errors.New("Stopped(ctx) is false after Ctrl-C")
		}
		return ctx.Err()
	})
	var out, errOut strings.Builder
	err := Run(context.Background(), turner, &Options{In: strings.NewReader("long\nnext\n"), Out: &out, Err: &errOut, Interrupts: intr})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(texts, "|") != "long|next" || errOut.String() != "(stopped)\n" || out.String() != "" {
		t.Fatalf("turns %q, stderr %q, stdout %q", texts, errOut.String(), out.String())
	}
}

// TestRunInterruptAtThePromptLeaves: on piped input, Ctrl-C while waiting
// for a line ends the conversation with a newline.
func TestRunInterruptAtThePromptLeaves(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	intr := make(chan os.Signal, 1)
	var out strings.Builder
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), &recorder{}, &Options{In: pr, Out: &out, Interrupts: intr})
	}()
	intr <- os.Interrupt
	select {
	case err := <-done:
		if err != nil || out.String() != "\n" {
			t.Fatalf("err %v, stdout %q", err, out.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Ctrl-C at the prompt did not leave")
	}
}

// TestRunContextEnds: a turn ended by the conversation's own context is
// not mistaken for Ctrl-C: its error is the script's failure, as any other.
func TestRunContextEnds(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	var stopped bool
	turner := turnFunc(func(tctx context.Context, _ *Turn) error {
		cancel()
		<-tctx.Done()
		stopped = Stopped(tctx)
		return tctx.Err()
	})
	go pw.Write([]byte("hi\n"))
	var errOut strings.Builder
	err := Run(ctx, turner, &Options{In: pr, Out: io.Discard, Err: &errOut, Interrupts: make(chan os.Signal)})
	if !errors.Is(err, context.Canceled) || stopped || errOut.String() != "" {
		t.Fatalf("err %v, stopped %v, stderr %q", err, stopped, errOut.String())
	}
}

func TestRunReadError(t *testing.T) {
	pr, pw := io.Pipe()
	pw.CloseWithError(errors.New("disk on fire"))
	err := Run(context.Background(), &recorder{}, &Options{In: pr, Out: io.Discard, Interrupts: make(chan os.Signal)})
	if err == nil || !strings.Contains(err.Error(), "read input: disk on fire") {
		t.Fatalf("err = %v", err)
	}
}

func TestRunTerminalNeedsFiles(t *testing.T) {
	err := Run(context.Background(), &recorder{}, &Options{In: strings.NewReader(""), Out: io.Discard, Terminal: true, Interrupts: make(chan os.Signal)})
	if err == nil || !strings.Contains(err.Error(), "Options.Terminal") {
		t.Fatalf("err = %v", err)
	}
}

func TestLive(t *testing.T) {
	var b strings.Builder
	l := &Live{out: &b}
	l.Tool("read_file", "notes.md")
	l.Delta("Hello")
	l.Delta(", world")
	l.Tool("list_dir", "")
	l.Delta("done\n")
	l.Done()
	l.Delta("tail")
	l.Done()
	l.Tool("shell", "echo \x1b[2J")
	want := "  · read_file notes.md\n\nHello, world\n  · list_dir\n\ndone\ntail\n  · shell \"echo \\x1b[2J\"\n"
	if b.String() != want || !l.Streamed() {
		t.Fatalf("got %q, want %q", b.String(), want)
	}
	var none *Live
	none.Delta("x")
	none.Tool("x", "y")
	none.Done()
	if none.Streamed() {
		t.Fatal("nil Live streamed")
	}
	quiet := &Live{out: &b}
	quiet.Done()
	if quiet.Streamed() {
		t.Fatal("Done alone counts as streamed")
	}
}

// TestRunContextEndsAtThePrompt: a cancelled context ends the conversation
// quietly while it waits for a line.
func TestRunContextEndsAtThePrompt(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(10*time.Millisecond, cancel)
	if err := Run(ctx, &recorder{}, &Options{In: pr, Out: io.Discard, Interrupts: make(chan os.Signal)}); err != nil {
		t.Fatal(err)
	}
}
