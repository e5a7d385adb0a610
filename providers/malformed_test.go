package providers_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/providers/providertest"
)

// A stream that carries nothing decodable and then says [DONE] is a
// broken answer, not an empty one.
func TestStreamWithoutValidEventIsAnError(t *testing.T) {
	for _, tt := range []struct {
		name  string
		reply providertest.Reply
	}{
		{"scripted malformed stream", providertest.MalformedStream()},
		{"only DONE", providertest.Reply{Body: sse(`data: [DONE]`)}},
		{"garbage then DONE", providertest.Reply{Body: sse(`data: {"choices":[{"delta":{"content":"a`, `data: ???`, `data: [DONE]`)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := providertest.NewServer(t)
			srv.Enqueue(tt.reply)
			resp, err := newClient(t, srv.URL()).ChatStream(context.Background(), userRequest("hi"), nil)
			if !errors.Is(err, providers.ErrMalformedStream) {
				t.Fatalf("ChatStream = %+v, %v; want an error wrapping ErrMalformedStream", resp, err)
			}
			if errors.Is(err, providers.ErrStreamInterrupted) {
				t.Errorf("%v also reads as an interrupted stream", err)
			}
		})
	}

	// A stream whose valid events simply say nothing stays a (legitimately)
	// empty answer.
	srv := providertest.NewServer(t)
	srv.Enqueue(providertest.Text(""))
	if _, err := newClient(t, srv.URL()).ChatStream(context.Background(), userRequest("hi"), nil); err != nil {
		t.Fatalf("an empty but well-formed stream failed: %v", err)
	}
}

// The chain treats a malformed stream as a transient failure: it retries
// the primary, then falls back, and never returns the empty text.
func TestChainFallsBackAfterMalformedStream(t *testing.T) {
	clock := newFakeClock()
	prim := &fakeProvider{name: "a", model: "m1", retries: 1}
	back := &fakeProvider{name: "b", model: "m2"}
	c := newChain(t, clock, prim, back)
	prim.srv.Enqueue(providertest.MalformedStream(), providertest.MalformedStream())
	back.srv.Enqueue(providertest.Text("fine"))
	var got strings.Builder
	resp, err := c.ChatStream(context.Background(), userRequest("hi"), func(d providers.Delta) { got.WriteString(d.Content) })
	if err != nil || resp.Message.Content != "fine" || resp.Provider != "b" {
		t.Fatalf("resp %+v, err %v; want the fallback's answer", resp, err)
	}
	if n := len(prim.srv.Requests()); n != 2 {
		t.Errorf("primary asked %d times, want 2 (one retry)", n)
	}
	if got.String() != "fine" {
		t.Errorf("streamed %q, want only the fallback's answer", got.String())
	}

	// With no fallback left the caller gets the typed failure.
	solo := &fakeProvider{name: "solo", model: "m"}
	single := newChain(t, clock, solo)
	solo.srv.Enqueue(providertest.MalformedStream())
	if _, err := single.ChatStream(context.Background(), userRequest("hi"), nil); !errors.Is(err, providers.ErrMalformedStream) {
		t.Fatalf("err = %v, want ErrMalformedStream", err)
	}
}
