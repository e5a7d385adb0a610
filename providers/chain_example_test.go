package providers_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"

	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/providers/providertest"
)

// ExampleNewChain falls over from a failing primary to a second provider;
// the answer carries a notice saying so.
func ExampleNewChain() {
	primary, backup := providertest.NewHandler(), providertest.NewHandler()
	primary.Enqueue(providertest.Error(503, "overloaded"))
	backup.Enqueue(providertest.Text("Hello from the backup."))
	p, b := httptest.NewServer(primary), httptest.NewServer(backup)
	defer p.Close()
	defer b.Close()

	client := func(name, url string) *providers.Client {
		c, err := providers.NewClient(&providers.ClientOptions{Name: name, BaseURL: url + "/v1"})
		if err != nil {
			panic(err)
		}
		return c
	}
	chain, err := providers.NewChain(&providers.ChainOptions{
		Candidates: []providers.Candidate{
			// MaxRetries 0: fail over at once rather than retry in place.
			{Provider: "openrouter", Model: "openai/gpt-4o", Client: client("openrouter", p.URL)},
			{Provider: "groq", Model: "llama-3.3-70b-versatile", Client: client("groq", b.URL), MaxRetries: providers.DefaultMaxRetries},
		},
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		panic(err)
	}
	resp, err := chain.Chat(context.Background(), &providers.Request{
		Messages: []providers.Message{{Role: providers.RoleUser, Content: "hi"}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.FallbackNotice)
	fmt.Println(resp.Message.Content)
	// Output:
	// [fallback] openrouter (openai/gpt-4o) failed (HTTP 503: overloaded); answered by groq (llama-3.3-70b-versatile).
	// Hello from the backup.
}

// ExampleStripProviderPrefix shows the one rule that turns a configured
// model id into the id sent on the wire.
func ExampleStripProviderPrefix() {
	for _, model := range []string{"groq/llama-3.3-70b-versatile", "openrouter/openai/gpt-4o", "poolside/laguna-m"} {
		spec, _ := providers.ProviderForModel(model)
		fmt.Printf("%s -> %s sends %s\n", model, spec.Name, providers.StripProviderPrefix(spec.Name, model))
	}
	// Output:
	// groq/llama-3.3-70b-versatile -> groq sends llama-3.3-70b-versatile
	// openrouter/openai/gpt-4o -> openrouter sends openai/gpt-4o
	// poolside/laguna-m -> poolside sends poolside/laguna-m
}
