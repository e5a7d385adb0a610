package providers_test

import (
	"context"
	"testing"

	"github.com/joshbot/joshbot/providers/providertest"
)

// TestChainRequestModelReplacesPrimaryOnly checks that a conversation's own
// model choice (req.Model) is what the primary is asked for, while a
// fallback keeps the model configured for it.
func TestChainRequestModelReplacesPrimaryOnly(t *testing.T) {
	clock := newFakeClock()
	prim := &fakeProvider{name: "prim", model: "configured"}
	fb := &fakeProvider{name: "fb", model: "fallback-model"}
	c := newChain(t, clock, prim, fb)
	prim.srv.Enqueue(status(401, ""))
	fb.srv.Enqueue(providertest.Text("ok"))
	req := userRequest("hi")
	req.Model = "chosen-in-chat"
	if _, err := c.Chat(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if got := prim.srv.Requests()[0].Model; got != "chosen-in-chat" {
		t.Errorf("primary asked for %q", got)
	}
	if got := fb.srv.Requests()[0].Model; got != "fallback-model" {
		t.Errorf("fallback asked for %q", got)
	}
}
