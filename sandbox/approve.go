package sandbox

import (
	"context"
	"errors"
)

// Decision is an approver's answer. The zero value is [Deny], so a
// Decision that was never set refuses.
type Decision int

const (
	// Deny refuses the command.
	Deny Decision = iota
	// Allow runs this one command.
	Allow
	// AllowSession runs this command and tells the approver's owner that
	// the human is content to allow the rest of the session too. An
	// approver only returns it when [ApprovalRequest.SessionAllowed] is
	// set; anywhere else it counts as [Allow] for this one command.
	AllowSession
)

// String names the decision for logs.
func (d Decision) String() string {
	switch d {
	case Allow:
		return "allow"
	case AllowSession:
		return "allow-session"
	default:
		return "deny"
	}
}

// ApprovalRequest is what a human is asked to approve. The whole command
// line and the working directory are shown because the arguments, not the
// program, are what makes a command dangerous.
type ApprovalRequest struct {
	// Tool names the tool asking, "shell" for commands.
	Tool string
	// Command is the complete command line, exactly as it will run; for
	// another tool, a one-line description of what the call would do.
	Command string
	// Dir is the working directory the command runs in.
	Dir string
	// Confined says whether the command runs inside the sandbox, which a
	// human weighing the request wants to know.
	Confined bool
	// SessionAllowed says the approver may offer "allow for the rest of
	// this session" (tools.shell_approval "interactive"); under "always"
	// it is false and every command is asked about.
	SessionAllowed bool
	// Reason, when set, says why the human is asked at all: a tool call
	// that acts (not only the shell) is asked about because the turn read
	// untrusted text. Approvers show it; empty means the tool's own
	// approval setting asked.
	Reason string
}

// Approver decides whether a command may run. Implementations must return
// promptly once ctx is done. Approve is called from the goroutine running
// the tool, possibly several at once for different conversations.
type Approver interface {
	Approve(ctx context.Context, req *ApprovalRequest) (Decision, error)
}

// ApproverFunc adapts a function to [Approver].
type ApproverFunc func(ctx context.Context, req *ApprovalRequest) (Decision, error)

// Approve calls f.
func (f ApproverFunc) Approve(ctx context.Context, req *ApprovalRequest) (Decision, error) {
	return f(ctx, req)
}

// ErrNoApprover is the error [DenyAll] gives: no human can be asked in
// this context (a cron job, a piped run, a channel without buttons).
var ErrNoApprover = errors.New("no human approver is available for this request")

// DenyAll refuses everything. It is what [ApproverFromContext] returns when
// no approver was installed, so a context nobody prepared fails closed.
var DenyAll Approver = ApproverFunc(func(context.Context, *ApprovalRequest) (Decision, error) {
	return Deny, ErrNoApprover
})

type approverKey struct{}

// WithApprover returns a context carrying a. The approver rides on the
// request context, not on a tool, because one tool value serves many
// conversations at once and each must ask its own human. A nil a installs
// [DenyAll].
func WithApprover(ctx context.Context, a Approver) context.Context {
	if a == nil {
		a = DenyAll
	}
	return context.WithValue(ctx, approverKey{}, a)
}

// ApproverFromContext returns the approver installed by [WithApprover], or
// [DenyAll] when there is none.
func ApproverFromContext(ctx context.Context) Approver {
	if a, ok := ctx.Value(approverKey{}).(Approver); ok && a != nil {
		return a
	}
	return DenyAll
}

// Ask puts req to a and reduces every failure to [Deny]: an error, a done
// context (deadline, Ctrl-C) and an unknown decision all refuse. The error
// says why, for the message shown to the model; it is nil only for an
// explicit allow or an explicit deny.
func Ask(ctx context.Context, a Approver, req *ApprovalRequest) (Decision, error) {
	if a == nil {
		a = DenyAll
	}
	if err := ctx.Err(); err != nil {
		return Deny, err
	}
	d, err := a.Approve(ctx, req)
	if err != nil {
		return Deny, err
	}
	if cerr := ctx.Err(); cerr != nil {
		// An answer that arrives after the deadline is too late to trust:
		// the turn it belonged to is already over.
		return Deny, cerr
	}
	switch d {
	case Allow, AllowSession:
		return d, nil
	default:
		return Deny, nil
	}
}
