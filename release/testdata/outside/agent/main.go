// Command agent is an outside program that imports the published agent
// module: one turn with one tool call, against the providertest fake model.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http/httptest"
	"os"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/providers/providertest"
	"github.com/joshbot/joshbot/tools"
)

// clock is the one tool the model calls.
type clock struct{}

func (clock) Name() string        { return "clock" }
func (clock) Description() string { return "Tells the time." }
func (clock) Parameters() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{}}`)
}
func (clock) Execute(context.Context, json.RawMessage) (string, error) {
	return "it is noon", nil
}

func main() {
	h := providertest.NewHandler()
	defer h.Close()
	srv := httptest.NewServer(h)
	defer srv.Close()
	client, err := providers.NewClient(&providers.ClientOptions{Name: "fake", BaseURL: srv.URL})
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "outside-agent-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	store, err := memory.NewStore(dir)
	if err != nil {
		log.Fatal(err)
	}
	reg := tools.NewRegistry()
	if err := reg.Register(clock{}); err != nil {
		log.Fatal(err)
	}
	a, err := agent.New(client, "m", store, &agent.Options{Tools: reg})
	if err != nil {
		log.Fatal(err)
	}
	defer a.Wait()
	h.Enqueue(providertest.ToolCalls(providertest.Call("clock", `{}`)), providertest.Text("The clock says noon."))
	reply, err := a.Process(context.Background(), agent.Request{SessionKey: "cli:outside", Text: "what time is it?"})
	if err != nil {
		log.Fatal(err)
	}
	reqs := h.Requests()
	last := reqs[len(reqs)-1].Messages
	fmt.Printf("agent ok: %q after %d tool call(s), tool said %q\n", reply.Text, reply.ToolCalls, last[len(last)-1].Content)
}
