// Package apiserver serves joshbot over HTTP in the OpenAI chat dialect, so
// any client that accepts a custom base URL can talk to the agent.
//
// It will hold POST /v1/chat/completions (plain and server-sent events),
// GET /v1/models, /v1/embeddings, /v1/audio/transcriptions, mandatory
// bearer authentication, and an optional embedded web chat page.
//
// The module imports nothing else from joshbot: it declares the small
// interfaces it needs (an agent, a transcriber, an embedder) and the joshbot
// binary passes the real implementations in.
//
// This release defines the module and its place in the workspace; the server
// arrives in the HTTP API release.
package apiserver
