package agent

import "context"

// StreamEvent is one piece of a streamed turn.
type StreamEvent struct {
	// Delta is new answer text; empty on the final event.
	Delta string
	// Done is true on the final event of a turn.
	Done bool
}

// Sink receives the events of a streamed turn, in order, on the goroutine
// running the turn. It must not block for long: the model's stream waits
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
