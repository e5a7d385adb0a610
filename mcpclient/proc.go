package mcpclient

import (
	"context"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stopGrace is how long a server has to exit after its stdin closes, and
// again after SIGTERM, before the next, harder step.
var stopGrace = 2 * time.Second

// proc is one running server process and the pipes to it. It owns the
// process from start to reaping: a goroutine waits for it (so it never
// lingers as a zombie) and, once it exits, kills whatever is left of its
// process group (so nothing it started lingers as an orphan).
type proc struct {
	cmd    *exec.Cmd
	stdin  *os.File
	stdout *os.File
	stderr *tail
	// stderrDone is closed once everything the process wrote to stderr
	// has been copied into the tail.
	stderrDone chan struct{}

	done    chan struct{} // closed once the process is reaped
	waitErr error         // valid after done

	stopOnce sync.Once
}

// startProc launches cmd with fresh pipes. The parent's copies of the
// child's ends are closed at once, so end of file on stdout means every
// process holding it has gone.
func startProc(cmd *exec.Cmd) (*proc, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	setProcAttr(cmd)
	err = cmd.Start()
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, err
	}
	p := &proc{cmd: cmd, stdin: inW, stdout: outR, stderr: &tail{max: 2048}, done: make(chan struct{}), stderrDone: make(chan struct{})}
	go func() {
		io.Copy(p.stderr, errR)
		errR.Close()
		close(p.stderrDone)
	}()
	go func() {
		p.waitErr = cmd.Wait()
		killGroup(cmd.Process)
		close(p.done)
	}()
	return p, nil
}

// stop ends the process the way the MCP specification asks: close its
// input, wait, SIGTERM, wait, SIGKILL; the process group goes with it. It
// returns once the process is reaped. stop is idempotent.
func (p *proc) stop() {
	p.stopOnce.Do(func() {
		p.stdin.Close()
		if !p.wait(stopGrace) {
			termGroup(p.cmd.Process)
			if !p.wait(stopGrace) {
				killGroup(p.cmd.Process)
				<-p.done
			}
		}
		p.stdout.Close()
	})
}

func (p *proc) wait(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.done:
		return true
	case <-t.C:
		return false
	}
}

// exitReason describes how the process ended, with the end of its stderr.
func (p *proc) exitReason() string {
	select {
	case <-p.done:
	default:
		return "still running"
	}
	why := "exited"
	if p.waitErr != nil {
		why = p.waitErr.Error()
	}
	// The last words usually explain the exit; let the copier drain the
	// pipe, but not forever: a surviving grandchild may hold it open.
	select {
	case <-p.stderrDone:
	case <-time.After(500 * time.Millisecond):
	}
	if t := p.stderr.String(); t != "" {
		why += "; stderr ends: " + t
	}
	return why
}

// procTransport is an [mcp.Transport] that runs one server process.
type procTransport struct {
	cmd    *exec.Cmd
	onOver func()

	mu   sync.Mutex
	proc *proc
}

func (t *procTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	p, err := startProc(t.cmd)
	if err != nil {
		return nil, errorf("start %s: %w", t.cmd.Path, err)
	}
	t.mu.Lock()
	t.proc = p
	t.mu.Unlock()
	rwc := &procRWC{p: p, r: newCapReader(p.stdout, perLine, MaxMessage, t.onOver)}
	// The SDK's own line cap sits just above ours, so ours, which can say
	// why, always fires first.
	return (&mcp.IOTransport{Reader: rwc, Writer: rwc, MaxLineLength: MaxMessage + 1024}).Connect(ctx)
}

func (t *procTransport) process() *proc {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.proc
}

// procRWC is the connection's byte stream; closing it stops the process.
type procRWC struct {
	p *proc
	r *capReader
}

func (c *procRWC) Read(b []byte) (int, error)  { return c.r.Read(b) }
func (c *procRWC) Write(b []byte) (int, error) { return c.p.stdin.Write(b) }
func (c *procRWC) Close() error {
	c.p.stop()
	return nil
}

// tail keeps the last max bytes written to it: the end of a server's
// stderr, which is where the reason for a crash usually is.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(b), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimSpace(strings.ToValidUTF8(string(t.buf), "?"))
	return strings.Join(strings.Fields(s), " ")
}
