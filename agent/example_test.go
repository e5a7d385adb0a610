package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/providers/providertest"
	"github.com/joshbot/joshbot/tools"
)

// upper is a tool of the example's own: it upper-cases its text.
type upper struct{}

func (upper) Name() string        { return "upper" }
func (upper) Description() string { return "Upper-case a text." }
func (upper) Parameters() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)
}
func (upper) Execute(_ context.Context, args json.RawMessage) (string, error) {
	var a struct{ Text string }
	if err := json.Unmarshal(args, &a); err != nil {
		return "", err
	}
	return strings.ToUpper(a.Text), nil
}

// One turn with one tool call, against a scripted OpenAI-compatible server
// (providertest) instead of a real model: the model calls upper, reads its
// result, and answers.
func ExampleNew() {
	h := providertest.NewHandler()
	srv := httptest.NewServer(h)
	defer srv.Close()
	h.Enqueue(
		providertest.ToolCalls(providertest.Call("upper", `{"text":"hello"}`)),
		providertest.Text("The tool says HELLO."),
	)
	client, err := providers.NewClient(&providers.ClientOptions{Name: "scripted", BaseURL: srv.URL, APIKey: "k"})
	if err != nil {
		panic(err)
	}

	dir, _ := os.MkdirTemp("", "agent-example")
	defer os.RemoveAll(dir)
	store, err := memory.NewStore(filepath.Join(dir, "sessions"))
	if err != nil {
		panic(err)
	}
	reg := tools.NewRegistry()
	if err := reg.Register(upper{}); err != nil {
		panic(err)
	}
	a, err := agent.New(client, "test-model", store, &agent.Options{
		Tools:     reg,
		Workspace: filepath.Join(dir, "workspace"),
		// The scripted server has no reply queued for the step that
		// learns facts after a turn.
		Memory: agent.MemoryOptions{DisableLearning: true},
	})
	if err != nil {
		panic(err)
	}
	defer a.Wait()

	reply, err := a.Process(context.Background(), agent.Request{SessionKey: "cli:me", Text: "shout hello"})
	if err != nil {
		panic(err)
	}
	fmt.Println(reply.Text)
	fmt.Println(reply.Iterations, "requests,", reply.ToolCalls, "tool call")
	// Output:
	// The tool says HELLO.
	// 2 requests, 1 tool call
}
