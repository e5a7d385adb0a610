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
// # Testing
//
// The providertest package serves scripted OpenAI-compatible replies on an
// httptest server; every other joshbot module's tests use it.
package providers
