package term

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/joshbot/joshbot/sandbox"
)

// Approver asks the person at the terminal before a shell command runs.
// It reads answers through the ReadLine function it was made with, the
// same reader of standard input the conversation uses, so an answer is
// never stolen by (or from) the prompt loop. It is safe for concurrent
// use; prompts are asked one at a time.
type Approver struct {
	out      io.Writer
	readLine func(ctx context.Context) (string, error)

	mu             sync.Mutex
	sessionAllowed bool
}

var _ sandbox.Approver = (*Approver)(nil)

// NewApprover returns an approver that writes its prompts to out and reads
// each answer with readLine.
func NewApprover(out io.Writer, readLine func(ctx context.Context) (string, error)) *Approver {
	return &Approver{out: out, readLine: readLine}
}

// Approve shows the whole command line and working directory and waits
// for an answer. Only "y" or "yes" allows; "a" allows the rest of the
// session where the request permits it. Anything else, end of input, a
// deadline or Ctrl-C denies.
func (c *Approver) Approve(ctx context.Context, req *sandbox.ApprovalRequest) (sandbox.Decision, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if req.SessionAllowed && c.sessionAllowed {
		return sandbox.Allow, nil
	}
	where := "NOT sandboxed"
	if req.Confined {
		where = "sandboxed"
	}
	if req.Tool != "" && req.Tool != "shell" {
		fmt.Fprintf(c.out, "\njoshbot wants to use the %s tool\n", Printable(req.Tool))
	} else {
		fmt.Fprintf(c.out, "\njoshbot wants to run a shell command (%s)\n  in:  %s\n", where, TildePath(req.Dir))
	}
	if req.Reason != "" {
		fmt.Fprintf(c.out, "  why asked: %s\n", Printable(req.Reason))
	}
	for i, line := range strings.Split(req.Command, "\n") {
		prefix := "  $   "
		if i > 0 {
			prefix = "  >   "
		}
		fmt.Fprintf(c.out, "%s%s\n", prefix, Printable(line))
	}
	if req.SessionAllowed {
		fmt.Fprint(c.out, "Run it? [y]es / [N]o / [a]llow all for this session: ")
	} else {
		fmt.Fprint(c.out, "Run it? [y]es / [N]o: ")
	}
	answer, err := c.readLine(ctx)
	if err != nil {
		fmt.Fprintln(c.out, "\n(no answer: not run)")
		return sandbox.Deny, errorf("approval prompt: %w", err)
	}
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes":
		return sandbox.Allow, nil
	case "a", "all":
		if req.SessionAllowed {
			c.sessionAllowed = true
			return sandbox.AllowSession, nil
		}
	}
	fmt.Fprintln(c.out, "(not run)")
	return sandbox.Deny, nil
}

// ApproverFor returns the approver a command-line turn gets: the terminal
// prompt when there is a terminal to ask (terminal is true and readLine
// is not nil), and sandbox.DenyAll otherwise, so a piped or scripted run
// is refused at once instead of waiting for an answer nobody will type.
func ApproverFor(terminal bool, out io.Writer, readLine func(context.Context) (string, error)) sandbox.Approver {
	if !terminal || readLine == nil {
		return sandbox.DenyAll
	}
	return NewApprover(out, readLine)
}

// Printable quotes a line holding anything a terminal would interpret, so
// what the person reads is what runs; any other line is returned as is.
func Printable(s string) string {
	for _, r := range s {
		if r != '\t' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r)) {
			return strconv.QuoteToASCII(s)
		}
	}
	return s
}

// TildePath shows p with the user's home directory as ~.
func TildePath(p string) string {
	if u, err := os.UserHomeDir(); err == nil && u != "/" {
		if rest, ok := strings.CutPrefix(p, u); ok && (rest == "" || rest[0] == os.PathSeparator) {
			return "~" + rest
		}
	}
	return p
}
