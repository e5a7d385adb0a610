package tools

import "context"

// Recipient is the conversation a turn answers: where the message and
// send_file tools deliver. It travels on the context, set by the agent from
// the inbound message, so a model can never address anyone else.
type Recipient struct {
	// Channel names the adapter ("telegram", "discord", "cli").
	Channel string
	// ChatID is the conversation within the channel.
	ChatID string
	// SessionKey is the "channel:sender" key of the conversation.
	SessionKey string
}

type recipientKey struct{}

// WithRecipient returns a context carrying r for the tools of one turn.
func WithRecipient(ctx context.Context, r Recipient) context.Context {
	return context.WithValue(ctx, recipientKey{}, r)
}

// RecipientFromContext returns the turn's recipient and whether one was set.
func RecipientFromContext(ctx context.Context) (Recipient, bool) {
	r, ok := ctx.Value(recipientKey{}).(Recipient)
	return r, ok && r.Channel != ""
}

// Conditional is the optional ability of a [Tool] to be unavailable in some
// turns, such as the subagent tools at the nesting limit. The agent leaves
// a tool whose Available reports false out of the tools it offers, so the
// model is not shown a tool that can only fail.
type Conditional interface {
	Available(ctx context.Context) bool
}

// Preparer is the optional ability of a [Tool] to get ready for a call the
// model has asked for but that has not run yet. The agent calls Prepare as
// soon as a reply names the tool, before the message is saved and the
// call checked, so whatever the call needs first (the shell's confining
// helper) starts meanwhile. Prepare must return at once, act on nothing
// the user can see, and be harmless when no call follows: the call may
// still be refused.
type Preparer interface {
	Prepare()
}
