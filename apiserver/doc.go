// Package apiserver serves joshbot over HTTP in the OpenAI chat dialect, so
// any client that accepts a custom base URL can talk to the agent.
//
// The module imports nothing else from joshbot: it declares the small
// interfaces it needs ([Agent], [Embedder], [Transcriber],
// [TranscriptReader]) and the joshbot binary passes the real ones in.
//
//	srv, err := apiserver.New(&apiserver.Options{Agent: a, APIKeys: keys})
//	if err != nil { ... } // ErrNoAPIKey: there is no unauthenticated mode
//	http.Serve(ln, srv)
//
// # Routes
//
//   - POST /v1/chat/completions runs one agent turn. The newest message must
//     be the user's; earlier messages and any system message are not
//     forwarded, because the agent keeps the conversation and its own
//     system prompt. The user field picks the conversation ("api:<user>");
//     without it the conversation is derived from the earlier messages
//     (see Conversations). With stream: true the answer arrives as server-sent events;
//     stream_options.include_usage adds a usage chunk before [DONE].
//   - GET /v1/models lists one model, [ModelID]; a request's model is
//     accepted and ignored.
//   - POST /v1/embeddings and POST /v1/audio/transcriptions call the
//     configured [Embedder] and [Transcriber], or answer 501 naming the
//     config key when there is none.
//   - GET /healthz is the one unauthenticated route.
//   - With [Options.WebUI], a browser chat page at / and its routes under
//     /webui/. Without it they are all 404 and session cookies are ignored.
//
// # Conversations
//
// A request without a user field, as stock chat apps send it (the whole
// history every time), continues the derived conversation whose last
// answer left the client with exactly the user and assistant text turns
// it sends (trimmed; system messages, tool results and assistant messages
// without text left out). Anything else (a new chat, an edit of an
// earlier message, a regenerate) starts a new session, [DerivedKeyPrefix]
// and 16 hex digits, and [TurnRequest] History carries the client's turns
// for the [Agent] to seed it with. The index of derived conversations is
// in memory and bounded by [Options] MaxConversations; a conversation it
// no longer holds forks the same way. Distinct conversations run in
// parallel.
//
// # Failures
//
// A turn that fails before anything was streamed is answered with an error
// status (502 for a provider failure) and an OpenAI error object. Once
// streaming has begun, the failure is sent as a data frame holding an error
// object, and the stream ends without finish_reason "stop" and without
// [DONE]. A failed turn is never a 200 carrying an error as its answer.
//
// # Tool progress extension
//
// While a streamed turn runs a tool, the stream carries an SSE comment line
//
//	: joshbot.progress {"tool":"read_file","detail":"notes.md"}
//
// followed by a blank line, and, when a running tool reports how it is
// getting on, one more such line per note:
//
//	: joshbot.progress {"tool":"web_search","note":"falling back to duckduckgo after exa failed"}
//
// Comment lines are ignored by every conforming
// SSE parser, so the official OpenAI clients and other standard clients
// never see it; joshbot's web page reads it to show what the agent is doing.
// The JSON object has the fields of [Progress]; more may be added.
//
// While the model has not begun answering, [Event] Waiting is carried the
// same way, as ": joshbot.waiting {"seconds":12}" ([WaitingPrefix]).
//
// # Security
//
// Bearer keys are compared in constant time and never logged or echoed;
// failed authentications are logged at most once per ten seconds with a
// count of those held back. Bodies are capped at [MaxBodyBytes] (audio at
// [MaxAudioBytes]). The web UI trades a key for an HttpOnly, SameSite=Strict
// cookie (Secure over TLS) naming an in-memory, expiring, bounded session;
// cookie-authenticated requests that change state must be same-origin and
// carry the session's [CSRFHeader]. The page is served under a
// default-src 'none' Content-Security-Policy with no inline script or
// style, and puts model output on the page as text only.
package apiserver
