// Package providertest serves scripted OpenAI-compatible chat-completions
// replies, so code that talks to an LLM through the providers package can be
// tested without a network or a model.
//
// Script the replies in order, point a client at [Server.URL], and inspect
// what the client sent with [Handler.Requests]:
//
//	srv := providertest.NewServer(t)
//	srv.Enqueue(
//		providertest.ToolCalls(providertest.Call("read_file", `{"path":"a.txt"}`)),
//		providertest.Text("done"),
//	)
//	c, _ := providers.NewClient(&providers.ClientOptions{BaseURL: srv.URL()})
//
// Every reply is rendered as a plain JSON completion or as a server-sent
// event stream, whichever the request asked for, so one script serves both
// [providers.Client.Chat] and [providers.Client.ChatStream]. Streams split
// text and tool-call arguments across several events to exercise the
// client's reassembly.
//
// [NewHandler] offers the same scripting as a bare http.Handler for programs
// without a testing.TB, such as a benchmark server.
package providertest

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/joshbot/joshbot/providers"
)

// Reply is one scripted answer. The zero value is an empty assistant message
// that finished with "stop".
type Reply struct {
	// Content is the assistant's text.
	Content string
	// ToolCalls are the calls the assistant makes. A call with an empty ID
	// gets "call_1", "call_2", ... numbered across the handler's lifetime;
	// an empty Type is sent as "function".
	ToolCalls []providers.ToolCall
	// FinishReason is sent as is; empty means "tool_calls" when ToolCalls is
	// non-empty and "stop" otherwise.
	FinishReason string
	// Usage is reported in the completion, and in a final stream event
	// when the client asked for stream usage. Zero means no usage is
	// reported at all.
	Usage providers.Usage
	// Model is the model the reply claims to come from; empty echoes the
	// request's model.
	Model string

	// Status is the HTTP status; zero means 200. A non-2xx status with an
	// empty Body sends an OpenAI-shaped error naming the status.
	Status int
	// Header is added to the response. Nil adds nothing.
	Header http.Header
	// Body, when non-empty, is sent verbatim instead of a rendered
	// completion, whatever the request's stream flag. Its Content-Type is
	// guessed from its first bytes (JSON, SSE, HTML or plain text) unless
	// Header sets one.
	Body string

	// Chunks is how many stream events Content is split into (and, capped
	// at three, each call's arguments). Zero means up to four.
	Chunks int
	// DieAfterChunks, when positive, drops the connection after that many
	// stream data events (the first one carries only the role), without a
	// finish reason or [DONE]. A non-streamed request gets its connection
	// dropped before any response.
	DieAfterChunks int
	// Malformed, when true, answers 200 with nothing a client can decode:
	// a stream request gets the opening role event, then data events that
	// are not JSON, then [DONE], the way a broken proxy or a buggy local
	// server garbles an answer; a non-streamed request gets a completion
	// cut off in the middle of its JSON.
	Malformed bool
	// Delay holds the reply back, to exercise client timeouts. The wait
	// ends early if the client goes away or the handler is closed.
	Delay time.Duration
	// HangAfterHeaders, when true, answers a stream request with the
	// status, the headers and a keep-alive comment, then sends nothing
	// more until the client goes away or the handler is closed: a provider
	// that accepted the request and never starts answering. A non-streamed
	// request gets no response at all in the meantime.
	HangAfterHeaders bool
	// HangAfterChunks, when positive, stops a stream after that many data
	// events (the first one carries only the role) and holds the
	// connection open until the client goes away or the handler is
	// closed: a model that stalls mid-answer, for a client to cancel.
	HangAfterChunks int
}

// Text returns a reply carrying the assistant text s.
func Text(s string) Reply { return Reply{Content: s} }

// ToolCalls returns a reply in which the assistant makes the given calls,
// typically built with [Call].
func ToolCalls(calls ...providers.ToolCall) Reply { return Reply{ToolCalls: calls} }

// Call returns a call of the named tool with args as its raw JSON arguments.
// Its ID is assigned when served; set the ID field to pin it.
func Call(name, args string) providers.ToolCall {
	return providers.ToolCall{Type: "function", Function: providers.FunctionCall{Name: name, Arguments: args}}
}

// MalformedStream returns a reply that answers 200 with undecodable
// events (see [Reply.Malformed]).
func MalformedStream() Reply { return Reply{Malformed: true} }

// Error returns a reply with the given HTTP status and an OpenAI-shaped
// error body carrying message.
func Error(status int, message string) Reply {
	body, _ := json.Marshal(map[string]any{"error": map[string]any{"message": message, "type": "providertest_error"}})
	return Reply{Status: status, Body: string(body), Header: http.Header{"Content-Type": {"application/json"}}}
}
