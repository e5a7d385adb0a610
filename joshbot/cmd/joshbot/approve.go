package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/joshbot/joshbot/sandbox"
)

// cliApprover asks the person at the terminal before a shell command
// runs. It reads answers through readLine, the same reader of standard
// input the conversation uses, so an answer is never stolen by (or from)
// the prompt loop. It is safe for concurrent use; prompts are asked one at
// a time.
type cliApprover struct {
	out      io.Writer
	readLine func(ctx context.Context) (string, error)

	mu             sync.Mutex
	sessionAllowed bool
}

var _ sandbox.Approver = (*cliApprover)(nil)

// Approve shows the whole command line and working directory and waits
// for an answer. Only "y" or "yes" allows; "a" allows the rest of the
// session where the request permits it. Anything else, end of input, a
// deadline or Ctrl-C denies.
func (c *cliApprover) Approve(ctx context.Context, req *sandbox.ApprovalRequest) (sandbox.Decision, error) {
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
		fmt.Fprintf(c.out, "\njoshbot wants to use the %s tool\n", printable(req.Tool))
	} else {
		fmt.Fprintf(c.out, "\njoshbot wants to run a shell command (%s)\n  in:  %s\n", where, tildePath(req.Dir))
	}
	if req.Reason != "" {
		fmt.Fprintf(c.out, "  why asked: %s\n", printable(req.Reason))
	}
	for i, line := range strings.Split(req.Command, "\n") {
		prefix := "  $   "
		if i > 0 {
			prefix = "  >   "
		}
		fmt.Fprintf(c.out, "%s%s\n", prefix, printable(line))
	}
	if req.SessionAllowed {
		fmt.Fprint(c.out, "Run it? [y]es / [N]o / [a]llow all for this session: ")
	} else {
		fmt.Fprint(c.out, "Run it? [y]es / [N]o: ")
	}
	answer, err := c.readLine(ctx)
	if err != nil {
		fmt.Fprintln(c.out, "\n(no answer: not run)")
		return sandbox.Deny, fmt.Errorf("approval prompt: %w", err)
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

// printable quotes a line holding anything a terminal would interpret,
// so what the human reads is what runs.
func printable(s string) string {
	for _, r := range s {
		if r != '\t' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r)) {
			return strconv.QuoteToASCII(s)
		}
	}
	return s
}

// approverFor returns the approver a turn gets: none when
// tools.shell_approval is off (the gate is not consulted), the terminal
// prompt when there is a terminal to ask, and sandbox.DenyAll otherwise,
// so a piped or scripted run is refused at once instead of waiting for an
// answer nobody will type.
func approverFor(terminal bool, out io.Writer, readLine func(context.Context) (string, error)) sandbox.Approver {
	if !terminal || readLine == nil {
		return sandbox.DenyAll
	}
	return &cliApprover{out: out, readLine: readLine}
}

// lineFeed reads standard input a line at a time on one goroutine, so a
// prompt can give up on a deadline without losing the reader.
type lineFeed struct {
	once  sync.Once
	r     io.Reader
	lines chan string
	err   chan error
}

func newLineFeed(r io.Reader) *lineFeed {
	return &lineFeed{r: r, lines: make(chan string), err: make(chan error, 1)}
}

func (f *lineFeed) read(ctx context.Context) (string, error) {
	f.once.Do(func() {
		go func() {
			br := bufio.NewReader(f.r)
			for {
				line, err := br.ReadString('\n')
				if line != "" || err == nil {
					f.lines <- strings.TrimRight(line, "\r\n")
				}
				if err != nil {
					f.err <- err
					return
				}
			}
		}()
	})
	select {
	case l := <-f.lines:
		return l, nil
	case err := <-f.err:
		f.err <- err
		return "", err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}
