package channels

import "context"

// The optional abilities below are what a live turn uses beyond [Channel]:
// the gateway asks for each with a type assertion and does without it when
// an adapter lacks it (a reply still goes out through Send). Each is one
// small interface with channel-neutral types, so the gateway names no
// adapter, and a test drives the gateway with channeltest.NewFake, which
// has them all.

// TypingIndicator is the ability to show that the bot is working.
type TypingIndicator interface {
	// Typing shows a "typing…" indicator in conversation until stop is
	// called or ctx ends, renewing it as the platform requires. stop is
	// idempotent and returns only once no further indicator will be sent.
	// Failures are not reported: an indicator is never worth failing a
	// turn over.
	Typing(ctx context.Context, conversation string) (stop func())
}

// StreamOptions configures a [Stream]. The zero value streams with no
// threading and no stop control.
type StreamOptions struct {
	// ReplyTo is the [Inbound.MessageID] the reply threads to; empty means
	// no threading.
	ReplyTo string
	// Cancel, when set, puts a stop control (Telegram's ⏹ Stop button) on
	// the message while it is being written; using it calls Cancel, so the
	// turn ends early. The control is released when the stream finishes.
	// An adapter may call Cancel on any goroutine.
	Cancel context.CancelFunc
}

// Streamer is the ability to show an answer while it is being written: one
// message edited in place, then replaced by the final text.
type Streamer interface {
	// StartStream begins a live reply in conversation. It does not wait
	// for the network; nothing need be posted until the first Update or
	// Status. The caller must call [Stream.Finish] exactly once.
	StartStream(ctx context.Context, conversation string, opts *StreamOptions) (Stream, error)
}

// Stream is one reply being written while a turn runs. Its methods are safe
// for concurrent use. Update and Status only record the latest state: an
// adapter shows it as often as its platform allows, so intermediate states
// may never appear.
type Stream interface {
	// Update sets the answer so far: the whole text, not a delta.
	Update(text string)
	// Status sets a progress line ("⚙️ shell: go test ./...") shown with
	// the answer so far; the final text replaces it. An empty line clears
	// it.
	Status(line string)
	// Finish replaces the live message with text, the final answer, sent
	// like [Channel.Send] would send it (split at the platform's limit,
	// threaded to StreamOptions.ReplyTo). Empty text removes the live
	// message. Finish runs even when ctx is already cancelled (a stop
	// press cancels the turn, and what was written still needs a home),
	// releases the stop control, and is a no-op when called again.
	Finish(ctx context.Context, text string) error
}

// Choice is one option of a picker.
type Choice struct {
	// Label is what the button shows.
	Label string
	// Value is the text that picking the choice sends, as if the user had
	// typed it (for example "/model openai/gpt-4o").
	Value string
}

// Picker is the ability to offer choices as buttons.
type Picker interface {
	// SendPicker posts title with one button per choice, threaded to
	// replyTo (an [Inbound.MessageID], or empty). A pick by a sender the
	// sink admits reaches the sink as an [Inbound] from the picker, in
	// that conversation, whose Text is the choice's Value and which counts
	// as addressing the bot; the rest of the gateway cannot tell it from a
	// typed command. An empty choices is an error.
	SendPicker(ctx context.Context, conversation, title string, choices []Choice, replyTo string) error
}

// Command is one entry of a command menu.
type Command struct {
	// Name is the command without its slash, such as "model". Platforms
	// accept lowercase letters, digits and underscores (Discord also
	// hyphens), up to 32 of them.
	Name string
	// Description is shown beside it. It must not be empty; an adapter
	// shortens one longer than its platform shows, ending it with "…".
	Description string
}

// CommandMenu is the ability to publish the list of slash commands the
// platform offers when the user types "/".
type CommandMenu interface {
	// SetCommands replaces the menu with menu. The whole list is checked
	// first: an entry the platform cannot take is an error naming it, and
	// nothing is published. It may be called before Start: an adapter that
	// can only publish once connected keeps the menu and publishes it then.
	SetCommands(ctx context.Context, menu []Command) error
}

// Decision is the answer to an approval prompt. The zero value is
// [DecisionDeny], so anything but an explicit yes denies.
type Decision int

// The decisions an approval prompt can return.
const (
	// DecisionDeny refuses the request.
	DecisionDeny Decision = iota
	// DecisionAllow allows this one request.
	DecisionAllow
	// DecisionAllowSession allows this request and, where the asker
	// offered it, the same kind of request for the rest of the session.
	DecisionAllowSession
)

// String returns the decision as a past participle: "allowed", "allowed
// for this session" or "denied".
func (d Decision) String() string {
	switch d {
	case DecisionAllow:
		return "allowed"
	case DecisionAllowSession:
		return "allowed for this session"
	}
	return "denied"
}

// ApprovalPrompter is the ability to ask the people in a conversation to
// approve something, such as a shell command, and wait for the answer.
type ApprovalPrompter interface {
	// Approve posts prompt (Markdown) with buttons to allow once, to deny
	// and, when offerSession, to allow for the session, bound to
	// conversation and requestID, and waits for a press by a sender the
	// sink admits. When ctx ends first it returns DecisionDeny and a nil
	// error (the caller's deadline bounds the wait). When the prompt
	// cannot be posted it returns DecisionDeny and the error: the gate
	// fails closed.
	Approve(ctx context.Context, conversation, requestID, prompt string, offerSession bool) (Decision, error)
}
