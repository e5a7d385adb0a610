package agent

import (
	"context"
	"time"
)

// StreamEvent is one piece of a streamed turn. Exactly one of its fields is
// set: a sink tells the kinds apart by field, never by parsing text.
type StreamEvent struct {
	// Delta is new answer text.
	Delta string
	// Notice is a one-line note for the person, not part of the answer:
	// today, that a fallback model answered because the configured one
	// failed (see [Options] QuietFallback). The notice also opens
	// [Reply.Text] and is in [Reply.Notice].
	Notice string
	// Tool reports a tool call starting, finishing, or noting its
	// progress while it runs ([ToolProgress].Note).
	Tool *ToolProgress
	// Err is set when the model's stream broke after some of the answer
	// had been shown. The text shown stays (it cannot be taken back), the
	// turn ends with what arrived, and [Reply.Interrupted] holds the same
	// error. It wraps the provider's error, for example
	// providers.ErrStreamInterrupted.
	Err error
	// Waiting, when positive, says the model has not started answering
	// a request sent this long ago. It comes after
	// [RequestOptions].WaitingNotice and again at that interval while the
	// wait lasts; any event of another kind ends the wait. A terminal
	// shows a spinner or a status line until then, a chat channel its
	// typing status. Waiting events come from a timer goroutine, but
	// never at the same time as another event of the turn.
	Waiting time.Duration
	// Done is true on the final event of a turn.
	Done bool
}

// ToolProgress is a tool call the agent is about to run or has run.
type ToolProgress struct {
	// Name is the tool's name.
	Name string
	// CallID pairs the start and the end of one call.
	CallID string
	// Arguments is the JSON the model sent, on the start event only.
	Arguments string
	// Finished is false when the call starts and true when it has ended.
	Finished bool
	// Failed is true, on the end event, when the call returned an error to
	// the model or was refused.
	Failed bool
	// Note, when set, is a line the tool reported while it runs (with
	// tools.Note: "falling back to Exa MCP", "downloading 3 of 7"). A
	// note event comes between its call's start and end events, with
	// Finished false and Arguments empty; a screen shows it as its own
	// line, distinct from the start and done lines.
	Note string
}

// Sink receives the events of a streamed turn, in order, one at a time, on
// the goroutine running the turn (Waiting events excepted, see
// [StreamEvent]). It must not block for long: the model's stream waits
// for it.
type Sink func(StreamEvent)

type sinkKey struct{}

// WithSink returns a context that streams the turn run with it to s. The sink
// travels on the context rather than on the Agent because one Agent serves
// many conversations at once, and each has its own screen.
func WithSink(ctx context.Context, s Sink) context.Context {
	return context.WithValue(ctx, sinkKey{}, s)
}

// SinkFromContext returns the sink attached by [WithSink], or nil.
func SinkFromContext(ctx context.Context) Sink {
	s, _ := ctx.Value(sinkKey{}).(Sink)
	return s
}
