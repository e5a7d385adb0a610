package providers_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/providers/providertest"
)

// Example streams an answer that involves a tool call from a scripted fake
// provider, the way the agent loop drives a real one.
func Example() {
	fake := providertest.NewHandler()
	fake.Enqueue(
		providertest.ToolCalls(providertest.Call("read_file", `{"path":"notes.txt"}`)),
		providertest.Text("The notes say hello."),
	)
	srv := httptest.NewServer(fake)
	defer srv.Close()

	c, err := providers.NewClient(&providers.ClientOptions{Name: "fake", BaseURL: srv.URL + "/v1"})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	req := &providers.Request{
		Model:    "any-model",
		Messages: []providers.Message{{Role: providers.RoleUser, Content: "What do my notes say?"}},
	}

	resp, err := c.Chat(ctx, req)
	if err != nil {
		fmt.Println(err)
		return
	}
	call := resp.Message.ToolCalls[0]
	fmt.Println(resp.FinishReason, call.ID, call.Function.Name, call.Function.Arguments)

	req.Messages = append(req.Messages, resp.Message,
		providers.Message{Role: providers.RoleTool, ToolCallID: call.ID, Content: "hello"})
	resp, err = c.ChatStream(ctx, req, func(d providers.Delta) { fmt.Printf("[%s]", d.Content) })
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println()
	fmt.Println(resp.FinishReason, resp.Message.Content)
	// Output:
	// tool_calls call_1 read_file {"path":"notes.txt"}
	// [The n][otes ][say h][ello.]
	// stop The notes say hello.
}

// ExampleAPIError shows how a caller decides whether to retry.
func ExampleAPIError() {
	fake := providertest.NewHandler()
	fake.Enqueue(providertest.Reply{
		Status: http.StatusTooManyRequests,
		Header: http.Header{"Retry-After": {"3"}},
		Body:   `{"error":{"message":"Rate limit exceeded","type":"rate_limit_error"}}`,
	})
	srv := httptest.NewServer(fake)
	defer srv.Close()

	c, _ := providers.NewClient(&providers.ClientOptions{Name: "openrouter", BaseURL: srv.URL + "/v1"})
	_, err := c.Chat(context.Background(), &providers.Request{Model: "m"})

	var apiErr *providers.APIError
	if errors.As(err, &apiErr) && apiErr.Temporary() {
		fmt.Println(err)
		fmt.Println("retry in", apiErr.RetryAfter)
	}
	// Output:
	// openrouter: HTTP 429: Rate limit exceeded
	// retry in 3s
}
