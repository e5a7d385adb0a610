package providers_test

import (
	"context"
	"testing"

	"github.com/joshbot/joshbot/providers"
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

// TestChainScreensTheConversationsModel checks that attachments are
// screened against the model a conversation chose, not the configured
// primary it replaces: a session that switched to a vision model can send
// a photo even when the default model is text-only, and the reverse is
// refused before any request.
func TestChainScreensTheConversationsModel(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	clock := newFakeClock()
	prim := &fakeProvider{name: "prim", model: "gpt-3.5-turbo"}
	c := newChain(t, clock, prim)
	prim.srv.Enqueue(providertest.Text("a cat"))
	req := userRequest("what is this?")
	req.Messages[len(req.Messages)-1].Images = []providers.Image{{Data: png}}
	req.Model = "gpt-4o"
	if _, err := c.Chat(context.Background(), req); err != nil {
		t.Fatalf("a vision model chosen in the conversation was refused: %v", err)
	}
	if got := prim.srv.Requests()[0].Model; got != "gpt-4o" {
		t.Fatalf("asked for %q", got)
	}

	prim2 := &fakeProvider{name: "prim", model: "gpt-4o"}
	c2 := newChain(t, clock, prim2)
	req2 := userRequest("and this?")
	req2.Messages[len(req2.Messages)-1].Images = []providers.Image{{Data: png}}
	req2.Model = "gpt-3.5-turbo"
	if _, err := c2.Chat(context.Background(), req2); err == nil {
		t.Fatal("a text-only model chosen in the conversation was sent a photo")
	}
	if n := len(prim2.srv.Requests()); n != 0 {
		t.Fatalf("%d requests before the refusal", n)
	}
}
