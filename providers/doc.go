// Package providers talks to large language models over the OpenAI-compatible
// chat-completions wire format, which every supported vendor (OpenRouter,
// OpenAI, Groq, Ollama, Anthropic through its compatibility endpoint, and any
// self-hosted server) speaks.
//
// The package is a leaf: it imports no other joshbot module, so another Go
// program can use it on its own to talk to any LLM provider.
//
// # Quick start
//
//	c, err := providers.NewClient(&providers.ClientOptions{
//		Name:    "openrouter",
//		BaseURL: "https://openrouter.ai/api/v1",
//		APIKey:  os.Getenv("OPENROUTER_API_KEY"),
//	})
//	if err != nil { ... }
//	resp, err := c.Chat(ctx, &providers.Request{
//		Model:    "openai/gpt-4o-mini",
//		Messages: []providers.Message{{Role: providers.RoleUser, Content: "hello"}},
//	})
//
// # Streaming
//
// [Client.ChatStream] decodes the server-sent event stream, hands each text
// delta to a callback as it arrives, assembles tool-call fragments by their
// index, and returns the same [Response] that [Client.Chat] would have.
//
// # Errors
//
// A non-2xx answer becomes an [*APIError] carrying the provider name, the
// HTTP status and the upstream message, so the user can be told exactly who
// failed and why; [APIError.Temporary] says whether a retry may help. A
// stream that breaks off yields an error wrapping [ErrStreamInterrupted]
// together with the partial [Response]. Each request, stream included, is
// bounded by [ClientOptions.Timeout], and response sizes are capped so a
// misbehaving server cannot exhaust memory.
//
// # Providers and models
//
// [Known] lists the providers joshbot knows by name (OpenRouter, OpenAI,
// Anthropic, Groq, NVIDIA, Poolside, Azure, GitHub Copilot, Ollama, LiteLLM
// and Custom) with their default endpoint and how they authenticate. A model
// id may select its provider by prefix ([ProviderForModel]:
// "groq/llama-3.3-70b-versatile"), and [StripProviderPrefix] is the one rule
// that turns it into the id sent on the wire. [ContextWindow],
// [SupportsVision] and [SupportsDocuments] describe known models; unknown
// ones get 128k tokens and no attachments.
//
// # Reliability
//
// A [Chain] asks a list of [Candidate] models in turn. A transient failure
// (429, 5xx, a network error) is retried in place with jittered exponential
// backoff, honouring Retry-After; a Retry-After over [MaxRetryWait] puts the
// provider into a cooldown instead and the chain moves on. A shared [Health]
// table tries failing providers last (never drops them). When a fallback
// answers, [Response.FallbackNotice] says who failed, why and who answered.
//
// # Attachments, speech and embeddings
//
// [Message.Images] and [Message.Documents] (PDF) are encoded by
// [Message.MarshalJSON] alone; a text-only message encodes byte for byte as
// it did before attachments existed. Types are decided from the bytes and
// limits are enforced before any request. [Client.Transcribe] speaks the
// OpenAI /audio/transcriptions dialect ([SniffAudio] checks the upload) and
// [Client.Embed] the /embeddings one, placing vectors by their index.
//
// # Testing
//
// The providertest package serves scripted OpenAI-compatible replies on an
// httptest server; every other joshbot module's tests use it.
package providers
