package apiserver

import (
	"context"
	"fmt"
	"time"
)

// Agent runs conversational turns. The joshbot binary adapts its ReAct agent
// to it; tests pass a fake.
type Agent interface {
	// Turn runs one turn of the conversation named by req.SessionKey and
	// returns the final answer. When emit is non-nil the turn streams:
	// every piece of answer text and every tool progress note goes to emit,
	// in order, on the goroutine running the turn, before Turn returns. emit
	// must not be called after Turn returns.
	//
	// A failed turn returns a non-nil error. Return an [*Error] to choose
	// the status and the text the client sees; any other error is shown as
	// a generic failure, because error text from deeper layers may carry
	// upstream detail an API caller should not read.
	Turn(ctx context.Context, req TurnRequest, emit func(Event)) (*TurnResult, error)
}

// TurnRequest is one user message for the [Agent].
type TurnRequest struct {
	// SessionKey names the conversation: "api:" followed by the request's
	// validated user field, or, for a request without one, a key the
	// server derived from its messages: [DerivedKeyPrefix] and 16 hex
	// digits (see the package documentation).
	SessionKey string
	// User is the validated user field; empty for a derived conversation.
	User string
	// Text is the user's message.
	Text string
	// History, when not nil, is the conversation before Text as the
	// client sent it: its user and assistant text turns, oldest first. It
	// is set only for a derived conversation the server has not seen
	// before (a fork after an edit or a regenerate, or one it forgot):
	// the Agent must begin the new session with these turns, stored as
	// they are, before it runs Text, so the model sees the history the
	// client shows. A first message has none.
	History []TranscriptMessage
}

// Event is one piece of a streamed turn: exactly one of Delta and Progress
// is set.
type Event struct {
	// Delta is new answer text.
	Delta string
	// Progress reports a tool the agent is running; nil for text.
	Progress *Progress
	// Waiting, when positive, says the model has not begun answering a
	// request sent this long ago; a stream carries it as a
	// joshbot.waiting comment (see the package documentation).
	Waiting time.Duration
}

// Progress describes a tool call the agent started, for the optional
// joshbot.progress stream extension (see the package documentation).
type Progress struct {
	// Tool is the tool's name, for example "read_file".
	Tool string `json:"tool"`
	// Detail is a short human-readable summary of the call, such as the
	// path read; it may be empty.
	Detail string `json:"detail,omitempty"`
	// Note, when set, is a line the tool reported while it runs
	// ("falling back to exa-mcp after exa failed"); the call's start was
	// reported earlier, in a Progress without a Note.
	Note string `json:"note,omitempty"`
}

// TurnResult is the outcome of a successful turn.
type TurnResult struct {
	// Text is the whole answer. For a streamed turn it is used only when
	// no Delta was emitted.
	Text string
	// Usage is the token usage of every model call in the turn; zero when
	// the provider reported none.
	Usage Usage
	// Truncated reports that the agent stopped before finishing (its step
	// limit), so the answer is sent with finish_reason "length".
	Truncated bool
}

// Usage counts tokens in the OpenAI manner.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// Embedder turns texts into vectors for POST /v1/embeddings.
type Embedder interface {
	// Embed returns one vector per input, in input order: Vectors[i]
	// belongs to inputs[i]. A result whose length differs from the number
	// of inputs is answered with a 502.
	Embed(ctx context.Context, inputs []string) (*Embeddings, error)
}

// Embeddings is what an [Embedder] returns.
type Embeddings struct {
	// Vectors holds one vector per input, in input order.
	Vectors [][]float32
	// PromptTokens is the provider's token count; zero when unknown.
	PromptTokens int
}

// Transcriber turns speech into text for POST /v1/audio/transcriptions.
type Transcriber interface {
	// Transcribe returns the text spoken in audio.
	Transcribe(ctx context.Context, audio *Audio) (string, error)
}

// Audio is one uploaded recording, held in memory only.
type Audio struct {
	// Data is the whole file.
	Data []byte
	// Format is the container recognised from Data's bytes: "flac", "mp3",
	// "mp4", "ogg", "wav" or "webm". The upload's own name and type are
	// not trusted.
	Format string
	// Filename is the name the client gave, for upstream APIs that want
	// one; it is never used to decide anything.
	Filename string
}

// TranscriptReader reads a stored conversation for the web UI, so a reload
// shows the transcript again.
type TranscriptReader interface {
	// Transcript returns the user and assistant turns of the session named
	// sessionKey, oldest first; an unknown session has none.
	Transcript(ctx context.Context, sessionKey string) ([]TranscriptMessage, error)
}

// TranscriptMessage is one turn of a stored conversation.
type TranscriptMessage struct {
	// Role is "user" or "assistant".
	Role string `json:"role"`
	// Content is the text of the turn.
	Content string `json:"content"`
	// Interrupted marks an assistant turn cut short (a Stop, a dropped
	// connection): Content is the part shown before it stopped.
	Interrupted bool `json:"interrupted,omitempty"`
}

// Error is an error an [Agent], [Embedder] or [Transcriber] returns to
// choose the HTTP status and the message the client sees. Err, if any, is
// logged but never sent.
type Error struct {
	// Status is the HTTP status; zero means 502 Bad Gateway.
	Status int
	// Message is shown to the client. It must carry nothing secret and no
	// upstream text: say which provider failed and how, not what it said.
	Message string
	// Err is the underlying failure, for the server log.
	Err error
}

// Error returns the public message and, after a colon, the cause.
func (e *Error) Error() string {
	if e.Err == nil {
		return e.Message
	}
	return fmt.Sprintf("%s: %v", e.Message, e.Err)
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }
