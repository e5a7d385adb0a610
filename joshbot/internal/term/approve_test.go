package term

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/joshbot/joshbot/sandbox"
)

func TestApprover(t *testing.T) {
	answers := func(lines ...string) func(context.Context) (string, error) {
		return func(ctx context.Context) (string, error) {
			if len(lines) == 0 {
				return "", errors.New("EOF")
			}
			l := lines[0]
			lines = lines[1:]
			return l, nil
		}
	}
	req := &sandbox.ApprovalRequest{Tool: "shell", Command: "rm -rf build --verbose\necho two", Dir: "/ws/sub", Confined: true, SessionAllowed: true}
	for _, tt := range []struct {
		name    string
		lines   []string
		req     *sandbox.ApprovalRequest
		want    []sandbox.Decision
		wantErr bool
	}{
		{"yes", []string{"y"}, req, []sandbox.Decision{sandbox.Allow}, false},
		{"YES", []string{" YES "}, req, []sandbox.Decision{sandbox.Allow}, false},
		{"empty is no", []string{""}, req, []sandbox.Decision{sandbox.Deny}, false},
		{"anything else is no", []string{"sure"}, req, []sandbox.Decision{sandbox.Deny}, false},
		{"EOF denies", nil, req, []sandbox.Decision{sandbox.Deny}, true},
		{"session allow sticks", []string{"a"}, req, []sandbox.Decision{sandbox.AllowSession, sandbox.Allow, sandbox.Allow}, false},
		{"no session allow under always", []string{"a"}, &sandbox.ApprovalRequest{Command: "ls", Dir: "/ws"}, []sandbox.Decision{sandbox.Deny}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			c := NewApprover(&out, answers(tt.lines...))
			for i, want := range tt.want {
				got, err := c.Approve(context.Background(), tt.req)
				if got != want || (err != nil) != (tt.wantErr && i == 0) {
					t.Fatalf("answer %d: got %v, %v; want %v", i, got, err, want)
				}
			}
			if !strings.Contains(out.String(), "$   "+strings.Split(tt.req.Command, "\n")[0]) || !strings.Contains(out.String(), "in:  "+tt.req.Dir) {
				t.Fatalf("prompt does not show the whole command and directory:\n%s", out.String())
			}
		})
	}
	// A multi-line command shows every line, and control characters are
	// quoted rather than sent to the terminal.
	var out bytes.Buffer
	c := NewApprover(&out, answers("n"))
	c.Approve(context.Background(), &sandbox.ApprovalRequest{Command: "echo one\necho \x1b[2Jtwo", Dir: "/ws"})
	if !strings.Contains(out.String(), "echo one") || !strings.Contains(out.String(), `\x1b[2Jtwo`) || strings.Contains(out.String(), "\x1b") {
		t.Fatalf("prompt: %q", out.String())
	}
	// A deadline while waiting denies.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	// (A pipe nobody writes to is a human who walked away.)
	pr, pw := io.Pipe()
	defer pw.Close()
	feed := NewLineFeed(pr)
	defer feed.Close()
	c = NewApprover(&out, feed.Read)
	if d, err := sandbox.Ask(ctx, c, req); d != sandbox.Deny || err == nil {
		t.Fatalf("deadline: %v, %v", d, err)
	}
}
