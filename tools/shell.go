package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/joshbot/joshbot/sandbox"
	"github.com/joshbot/joshbot/sandbox/fence"
)

// ApprovalMode says when the shell tool asks a human before running a
// command (ShellOptions.Approval).
type ApprovalMode int

const (
	// ApprovalOff runs screened commands without asking.
	ApprovalOff ApprovalMode = iota
	// ApprovalInteractive asks before each command and lets the human
	// allow the rest of the session at once.
	ApprovalInteractive
	// ApprovalAlways asks before every command, with no session-wide allow.
	ApprovalAlways
)

// ParseApprovalMode maps "off" (or empty), "interactive" and "always" to
// an ApprovalMode.
func ParseApprovalMode(s string) (ApprovalMode, error) {
	switch s {
	case "", "off":
		return ApprovalOff, nil
	case "interactive":
		return ApprovalInteractive, nil
	case "always":
		return ApprovalAlways, nil
	}
	return ApprovalOff, fmt.Errorf("approval mode %q: use off, interactive or always", s)
}

// Limits of the shell tool.
const (
	shellDefaultTimeout = 60 * time.Second
	shellMaxTimeout     = 10 * time.Minute
	shellDefaultOutput  = 64 << 10
	shellMaxJobs        = 8
	shellKeptJobs       = 32
)

// ShellOptions configures the shell tool. Workspace is required; every
// other zero value means the default named on the field.
type ShellOptions struct {
	// Workspace is where commands run and the only place they may write.
	Workspace string
	// Sandbox confines every command when set. Nil runs commands
	// unconfined, which is why the default screening is then allowlist.
	Sandbox *sandbox.Sandbox
	// Screen screens every command before anything else happens. Nil
	// means deny list screening when Sandbox is set and allowlist
	// screening with [sandbox.DefaultAllow] when it is not: the deny list
	// alone is bypassable, so without a sandbox nothing is run that was
	// not named in advance.
	Screen *sandbox.Screener
	// Approval says when to ask a human; the approver comes from the
	// request context ([sandbox.WithApprover]). Zero is [ApprovalOff].
	Approval ApprovalMode
	// Timeout bounds one command; zero means 60s. The model may ask for
	// less, or more up to 10 minutes.
	Timeout time.Duration
	// MaxOutput caps the combined output kept per command; zero means
	// 64 KiB.
	MaxOutput int
	// Environ supplies the parent environment filtered by
	// [sandbox.ChildEnv]; nil means os.Environ.
	Environ func() []string
	// EnvAllow adds variable names a command may inherit.
	EnvAllow []string
	// Shell is the shell that runs command lines; empty means /bin/sh.
	Shell string
	// Prestart keeps a sandbox helper started ahead of the next command
	// ([sandbox.Sandbox.Prestart]): one from NewShell, and another as
	// each command ends, so a command does not wait for its helper to
	// start. It suits a long-lived process, which keeps one helper
	// waiting, blocked, until its command comes; [Shell.Close] stops it.
	// It matters only with Sandbox set.
	Prestart bool
}

// Shell is the shell tool. It is safe for concurrent use.
type Shell struct {
	c       *contained
	opts    ShellOptions
	screen  *sandbox.Screener
	mu      sync.Mutex
	jobs    map[string]*shellJob
	nextJob int
	closed  bool
}

var _ Tool = (*Shell)(nil)

// NewShell returns the shell tool for opts.
func NewShell(opts *ShellOptions) (*Shell, error) {
	if opts == nil {
		return nil, errors.New("tools: shell: nil options")
	}
	c, err := newContained(opts.Workspace)
	if err != nil {
		return nil, fmt.Errorf("tools: shell: %w", err)
	}
	o := *opts
	if o.Timeout <= 0 {
		o.Timeout = shellDefaultTimeout
	}
	if o.MaxOutput <= 0 {
		o.MaxOutput = shellDefaultOutput
	}
	if o.Environ == nil {
		o.Environ = os.Environ
	}
	if o.Shell == "" {
		o.Shell = "/bin/sh"
	}
	scr := o.Screen
	if scr == nil {
		mode := sandbox.ScreenAllowlist
		if o.Sandbox != nil {
			mode = sandbox.ScreenDenylist
		}
		if scr, err = sandbox.NewScreener(&sandbox.ScreenOptions{Mode: mode, Workspace: c.root}); err != nil {
			return nil, fmt.Errorf("tools: shell: %w", err)
		}
	}
	if o.Sandbox != nil && o.Prestart {
		o.Sandbox.Prestart()
	}
	return &Shell{c: c, opts: o, screen: scr, jobs: map[string]*shellJob{}}, nil
}

// Name implements [Tool].
func (s *Shell) Name() string { return "shell" }

// Prepare implements [Preparer]: with a sandbox, the helper the next
// command needs starts now ([sandbox.Sandbox.Prestart]), while the agent
// saves the reply that asked for it and the command line is screened.
func (s *Shell) Prepare() {
	if s.opts.Sandbox != nil {
		s.opts.Sandbox.Prestart()
	}
}

// Description implements [Tool].
func (s *Shell) Description() string {
	var b strings.Builder
	b.WriteString("Run a shell command in the workspace and return its exit code and combined output. ")
	if s.opts.Sandbox != nil {
		b.WriteString("Commands run in a sandbox: only the workspace and build caches are writable")
		if !s.opts.Sandbox.Policy().AllowNetwork {
			b.WriteString(" and the network is unreachable")
		} else {
			b.WriteString("; the network is reached only through the HTTP proxy named by HTTPS_PROXY and HTTP_PROXY, and only at public addresses")
		}
		b.WriteString(". ")
	}
	if s.screen.Mode() == sandbox.ScreenAllowlist {
		b.WriteString("Every program in the command line must be allowlisted, with literal arguments and paths inside the workspace; allowed programs: ")
		b.WriteString(strings.Join(s.screen.Allowed(), ", "))
		b.WriteString(". ")
	}
	if s.opts.Approval != ApprovalOff {
		b.WriteString("A human approves each command before it runs. ")
	}
	fmt.Fprintf(&b, "Output is capped at %d KiB. Set async to run in the background and poll with job_id.", s.opts.MaxOutput>>10)
	return b.String()
}

// Parameters implements [Tool].
func (s *Shell) Parameters() json.RawMessage {
	return shellSchema.get()
}

type shellArgs struct {
	Command *string `json:"command,omitempty" jsonschema:"The command line to run with /bin/sh."`
	Workdir *string `json:"workdir,omitempty" jsonschema:"Directory to run in, relative to the workspace. Default: the workspace."`
	Timeout *int    `json:"timeout_seconds,omitempty" jsonschema:"Time limit. Default 60." schema:"minimum=1"`
	Async   bool    `json:"async,omitempty" jsonschema:"Start the command in the background and return a job id at once."`
	JobID   *string `json:"job_id,omitempty" jsonschema:"Instead of a command: report the status and output of a background job."`
}

// shellSchema bounds timeout_seconds by shellMaxTimeout.
var shellSchema = lazySchema{of: (*shellArgs)(nil), edit: boundShellTimeout}

func boundShellTimeout(s *jsonschema.Schema) {
	s.Properties["timeout_seconds"].Maximum = jsonschema.Ptr(float64(shellMaxTimeout / time.Second))
}

// Execute implements [Tool]. The order is the point: arguments, then
// screening, then the human, then the run, so a command the screen refuses
// never reaches a prompt, and async is gated exactly like a foreground run.
func (s *Shell) Execute(ctx context.Context, raw json.RawMessage) (string, error) {
	const name = "shell"
	var a shellArgs
	if err := decodeArgs(name, raw, &a); err != nil {
		return "", err
	}
	if a.Command == nil && a.JobID != nil {
		return s.jobStatus(*a.JobID)
	}
	if a.Command == nil || strings.TrimSpace(*a.Command) == "" {
		return "", missing(name, "command")
	}
	timeout := s.opts.Timeout
	if a.Timeout != nil {
		if *a.Timeout < 1 || time.Duration(*a.Timeout)*time.Second > shellMaxTimeout {
			return "", fmt.Errorf("%s: timeout_seconds must be between 1 and %d", name, int(shellMaxTimeout/time.Second))
		}
		timeout = time.Duration(*a.Timeout) * time.Second
	}
	dir := s.c.root
	if a.Workdir != nil && *a.Workdir != "" {
		fi, real, err := s.c.stat(*a.Workdir)
		if err != nil {
			return "", fmt.Errorf("%s: workdir: %w", name, err)
		}
		if !fi.IsDir() {
			return "", fmt.Errorf("%s: workdir %q is not a directory", name, *a.Workdir)
		}
		dir = real
	}
	command := *a.Command
	if err := s.screen.Check(command, dir); err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	if s.opts.Approval != ApprovalOff && !gateApproved(ctx) {
		req := &sandbox.ApprovalRequest{
			Tool: name, Command: command, Dir: dir,
			Confined:       s.opts.Sandbox != nil,
			SessionAllowed: s.opts.Approval == ApprovalInteractive,
		}
		d, err := sandbox.Ask(ctx, sandbox.ApproverFromContext(ctx), req)
		if d == sandbox.Deny {
			if err != nil {
				return "", fmt.Errorf("%s: not run: approval was not given (%w); ShellOptions.Approval requires a human to approve each command", name, err)
			}
			return "", fmt.Errorf("%s: not run: the human denied this command", name)
		}
	}
	if a.Async {
		return s.startJob(ctx, command, dir, timeout)
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	out := newCappedBuffer(s.opts.MaxOutput)
	code, err := s.run(runCtx, command, dir, out)
	if err != nil {
		if errors.Is(runCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
			return "", fmt.Errorf("%s: timed out after %s and was killed; output so far:\n%s", name, timeout, fenceOutput(command, out.String()))
		}
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fmt.Errorf("%s: %w", name, err)
	}
	return formatResult(command, code, out.String()), nil
}

// run runs command to completion and returns its exit code. A command
// that ran and failed is a result, not an error.
func (s *Shell) run(ctx context.Context, command, dir string, out *cappedBuffer) (int, error) {
	argv := []string{s.opts.Shell, "-c", command}
	env := sandbox.ChildEnv(s.opts.Environ(), &sandbox.EnvOptions{Allow: s.opts.EnvAllow})
	if sb := s.opts.Sandbox; sb != nil {
		// The helper runs the command in a session of its own, and
		// killing it, when ctx ends, kills everything the command started.
		p, err := sb.Start(ctx, &sandbox.Cmd{Dir: dir, Args: argv, Env: env, Output: out})
		if err != nil {
			return -1, err
		}
		code, err := p.Wait()
		if s.opts.Prestart {
			sb.Prestart()
		}
		return code, err
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin = nil
	cmd.Stdout, cmd.Stderr = out, out
	killGroupOnCancel(cmd)
	// A background grandchild can hold the output pipe open forever; stop
	// waiting for it shortly after the command itself ends.
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, nil
	case ctx.Err() != nil:
		return -1, ctx.Err()
	case errors.As(err, &ee):
		return ee.ExitCode(), nil
	case errors.Is(err, exec.ErrWaitDelay):
		return cmd.ProcessState.ExitCode(), nil
	default:
		return -1, err
	}
}

// formatResult is what the model sees of a finished command: its exit
// code, then its output fenced as untrusted (a command prints whatever it
// read, web pages and files included).
func formatResult(command string, code int, out string) string {
	if strings.TrimSpace(out) == "" {
		return "exit code: " + strconv.Itoa(code) + "\n(no output)"
	}
	return "exit code: " + strconv.Itoa(code) + "\n" + fenceOutput(command, out)
}

// fenceOutput fences a command's output, naming the command (shortened)
// as its source.
func fenceOutput(command, out string) string {
	return fence.Wrap("shell:"+oneLinePreview(command, 120), out, &fence.Options{Origin: "a command's output"})
}

// cappedBuffer keeps the first limit bytes written and counts the rest.
type cappedBuffer struct {
	mu      sync.Mutex
	buf     []byte
	limit   int
	dropped int64
}

func newCappedBuffer(limit int) *cappedBuffer { return &cappedBuffer{limit: limit} }

func (b *cappedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	room := b.limit - len(b.buf)
	if room >= len(p) {
		b.buf = append(b.buf, p...)
	} else {
		if room > 0 {
			b.buf = append(b.buf, p[:room]...)
		}
		b.dropped += int64(len(p) - max(room, 0))
	}
	return len(p), nil
}

// String returns the kept output as valid UTF-8, with a marker when some
// was dropped.
func (b *cappedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := strings.ToValidUTF8(string(b.buf), "\uFFFD")
	if b.dropped > 0 {
		s += fmt.Sprintf("\n…[output truncated: %d more bytes]", b.dropped)
	}
	return s
}

// shellJob is a command started with async.
type shellJob struct {
	id      string
	command string
	started time.Time
	out     *cappedBuffer
	done    chan struct{}
	cancel  context.CancelFunc
	code    int
	err     error
}

func (s *Shell) startJob(ctx context.Context, command, dir string, timeout time.Duration) (string, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return "", errors.New("shell: shutting down; background jobs are no longer started")
	}
	running := 0
	for _, j := range s.jobs {
		select {
		case <-j.done:
		default:
			running++
		}
	}
	if running >= shellMaxJobs {
		s.mu.Unlock()
		return "", fmt.Errorf("shell: %d background jobs are already running; wait for one with job_id", running)
	}
	s.nextJob++
	j := &shellJob{id: "job-" + strconv.Itoa(s.nextJob), command: command, started: time.Now(),
		out: newCappedBuffer(s.opts.MaxOutput), done: make(chan struct{})}
	s.jobs[j.id] = j
	s.pruneJobsLocked()
	s.mu.Unlock()

	// The job outlives the turn that started it, but not its own timeout
	// or Close.
	jctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	j.cancel = cancel
	go func() {
		defer cancel()
		defer close(j.done)
		j.code, j.err = s.run(jctx, command, dir, j.out)
	}()
	return fmt.Sprintf("started %s in the background (time limit %s); call shell with job_id %q for its output", j.id, timeout, j.id), nil
}

// pruneJobsLocked forgets the oldest finished jobs beyond shellKeptJobs.
func (s *Shell) pruneJobsLocked() {
	if len(s.jobs) <= shellKeptJobs {
		return
	}
	var done []*shellJob
	for _, j := range s.jobs {
		select {
		case <-j.done:
			done = append(done, j)
		default:
		}
	}
	sort.Slice(done, func(a, b int) bool { return done[a].started.Before(done[b].started) })
	for _, j := range done {
		if len(s.jobs) <= shellKeptJobs {
			break
		}
		delete(s.jobs, j.id)
	}
}

func (s *Shell) jobStatus(id string) (string, error) {
	s.mu.Lock()
	j, ok := s.jobs[id]
	s.mu.Unlock()
	if !ok {
		return "", fmt.Errorf("shell: no background job %q", id)
	}
	select {
	case <-j.done:
		if j.err != nil {
			return "", fmt.Errorf("shell: %s (%s) failed: %v; output:\n%s", id, j.command, j.err, fenceOutput(j.command, j.out.String()))
		}
		return id + " finished\n" + formatResult(j.command, j.code, j.out.String()), nil
	default:
		return fmt.Sprintf("%s still running after %s; output so far:\n%s", id, time.Since(j.started).Round(time.Second), fenceOutput(j.command, j.out.String())), nil
	}
}

// WaitJobs blocks until every background job has finished or ctx is done.
// It exists so a program can end cleanly and so tests leave nothing
// running.
func (s *Shell) WaitJobs(ctx context.Context) error {
	s.mu.Lock()
	var chans []chan struct{}
	for _, j := range s.jobs {
		chans = append(chans, j.done)
	}
	s.mu.Unlock()
	for _, c := range chans {
		select {
		case <-c:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// Close kills every background job still running and waits for them to be
// reaped. Jobs run in their own process group, so without it a job would
// outlive the program that started it. With [ShellOptions.Prestart] set it
// also closes the sandbox, stopping the helper waiting for a next
// command. Close is safe to call more than once.
func (s *Shell) Close() error {
	if s.opts.Sandbox != nil && s.opts.Prestart {
		s.opts.Sandbox.Close()
	}
	s.mu.Lock()
	s.closed = true
	var jobs []*shellJob
	for _, j := range s.jobs {
		jobs = append(jobs, j)
	}
	s.mu.Unlock()
	for _, j := range jobs {
		j.cancel()
		<-j.done
	}
	return nil
}
