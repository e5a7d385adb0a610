package providers

import "context"

// Provider is anything that can answer a chat request. [*Client] implements
// it; consumers should declare the narrower interface they need.
type Provider interface {
	// Chat sends req and waits for the whole answer.
	Chat(ctx context.Context, req *Request) (*Response, error)
	// ChatStream sends req with streaming on, calls onDelta for each piece of
	// the answer as it arrives, and returns the assembled answer. onDelta may
	// be nil.
	ChatStream(ctx context.Context, req *Request, onDelta func(Delta)) (*Response, error)
}

// Request is one chat-completions call.
type Request struct {
	// Model is the wire model id, already stripped of any provider prefix.
	Model    string
	Messages []Message
	// Tools the model may call; nil means none.
	Tools []ToolDefinition
	// Temperature is omitted from the wire request when nil.
	Temperature *float64
	// MaxTokens is omitted from the wire request when zero.
	MaxTokens int
	// ExtraBody holds provider-specific top-level fields merged into the
	// JSON body (for example chat_template_kwargs). A key that collides with
	// a field above is overridden by the field.
	ExtraBody map[string]any
}

// Response is a provider's complete answer to a [Request].
type Response struct {
	// Message is the assistant message, with any tool calls.
	Message Message
	// FinishReason is the provider's reason for stopping ("stop",
	// "tool_calls", "length", ...); empty if the provider sent none.
	FinishReason string
	// Usage is zero when the provider did not report it.
	Usage Usage
	// Model is the model id the provider says answered.
	Model string
	// Provider is the name of the provider that answered, set by [Chain];
	// empty from a bare [Client].
	Provider string
	// FallbackNotice is set by [Chain] when the answer came from a model
	// other than the first configured one: one line naming the provider
	// that failed, why, and who answered instead, meant to open the reply
	// so a silent model switch is never mistaken for the primary working.
	// It is not part of Message and must not be stored as the model's
	// words. Empty when the primary answered.
	FallbackNotice string
}

// Delta is one increment of a streamed answer.
type Delta struct {
	// Content is the new text, possibly empty when the chunk only carried
	// tool-call fragments or metadata.
	Content string
	// Notice, when not empty, is a [Response.FallbackNotice] delivered
	// ahead of the answer's first text so a streaming display can open
	// with it. It is not part of the answer; Content is empty alongside it.
	Notice string
}
