package sandbox

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"sync/atomic"
	"syscall"
	"time"
)

// Cmd is a command for [Sandbox.Start].
type Cmd struct {
	// Dir is where the command runs; it must be inside the workspace.
	Dir string
	// Args is the program and its arguments. A program named without a
	// slash is looked up in the PATH of Env.
	Args []string
	// Env is the command's environment, to which the sandbox adds what
	// [Sandbox.Command] adds (TMPDIR, the cache variables).
	Env []string
	// Output receives the command's standard output and standard error,
	// in the order it writes them; nil discards them. The command's
	// standard input is the null device. A command that needs its streams
	// apart, or input, is run through [Sandbox.Command].
	Output io.Writer
}

// Process is a command started by [Sandbox.Start].
type Process struct {
	wait   func() (int, error)
	signal func(os.Signal) error
}

// Wait waits for the command to end, releases what it held, and returns
// its exit status as a shell reports it: the command's exit code, 128
// plus the signal's number when a signal ended it, or 126 when the
// sandbox could not confine it (the reason is then on its standard
// error, and nothing ran). The error is set when the context given to
// [Sandbox.Start] ended, which killed the command, or when the command
// could not be waited for. Call it once.
func (p *Process) Wait() (int, error) { return p.wait() }

// Signal sends sig to the command. On Linux it is forwarded by the
// helper, the first process of the command's namespaces; os.Kill kills
// the helper, and with it every process the command started.
func (p *Process) Signal(sig os.Signal) error { return p.signal(sig) }

// prestartedTaken counts the commands given a helper [Sandbox.Prestart]
// started, for the tests to tell that path was taken.
var prestartedTaken atomic.Int64

// outputGrace bounds how long Wait copies output after the command ended:
// a background process the command left holding its output open (where
// nothing kills it at the command's end) is not waited for.
const outputGrace = 2 * time.Second

// Start runs c confined, as [Sandbox.Command] would, and returns once it
// has started. When ctx ends the command is killed. On Linux it runs in a
// helper started ahead of time by [Sandbox.Prestart] when one is waiting,
// so the command does not wait for a program to start, and in a new one
// otherwise; each command gets fresh namespaces either way.
func (s *Sandbox) Start(ctx context.Context, c *Cmd) (*Process, error) {
	if c == nil || len(c.Args) == 0 {
		return nil, errors.New("sandbox: empty command")
	}
	return s.start(ctx, c)
}

// exitStatus turns what os/exec's Wait returned into [Process.Wait]'s
// answer.
func exitStatus(ctx context.Context, err error, st *os.ProcessState) (int, error) {
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return -1, ctx.Err()
	case err == nil:
	case errors.As(err, &ee):
	case errors.Is(err, exec.ErrWaitDelay):
	default:
		return -1, err
	}
	if st == nil {
		return -1, err
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), nil
	}
	return st.ExitCode(), nil
}
