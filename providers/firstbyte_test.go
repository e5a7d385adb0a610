package providers_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/providers/providertest"
)

// A provider that accepts the request and never starts answering is given
// up on after ClientOptions.FirstByteTimeout, long before the request's
// own Timeout, with a TransportError that says which limit fired.
func TestFirstByteTimeout(t *testing.T) {
	for _, tt := range []struct {
		name  string
		reply providertest.Reply
	}{
		{"no headers", providertest.Reply{Content: "late", Delay: time.Minute}},
		{"headers but no event", providertest.Reply{Content: "late", HangAfterHeaders: true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := providertest.NewServer(t)
			c, err := providers.NewClient(&providers.ClientOptions{Name: "hung", BaseURL: srv.URL(), Timeout: time.Minute, FirstByteTimeout: 100 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			srv.Enqueue(tt.reply)
			start := time.Now()
			_, err = c.ChatStream(context.Background(), &providers.Request{Model: "m", Messages: []providers.Message{{Role: "user", Content: "hi"}}}, nil)
			if took := time.Since(start); took > 10*time.Second {
				t.Fatalf("waited %s", took)
			}
			var te *providers.TransportError
			if !errors.As(err, &te) || !te.Timeout || !te.FirstByte || te.Limit != 100*time.Millisecond {
				t.Fatalf("err = %v (%#v), want a first-byte TransportError", err, te)
			}
			if !strings.Contains(err.Error(), "FirstByteTimeout") {
				t.Errorf("the message does not name the setting: %v", err)
			}
		})
	}
}

// Once the stream has started, a slow answer is no longer bound by the
// first-byte limit.
func TestFirstByteTimeoutStopsAtFirstEvent(t *testing.T) {
	srv := providertest.NewServer(t)
	c, err := providers.NewClient(&providers.ClientOptions{BaseURL: srv.URL(), FirstByteTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(providertest.Text("quick"))
	resp, err := c.ChatStream(context.Background(), &providers.Request{Model: "m", Messages: []providers.Message{{Role: "user", Content: "hi"}}}, nil)
	if err != nil || resp.Message.Content != "quick" {
		t.Fatalf("resp %+v, err %v", resp, err)
	}
	time.Sleep(1200 * time.Millisecond) // a stopped timer must not cancel anything later
	srv.Enqueue(providertest.Text("again"))
	if resp, err := c.ChatStream(context.Background(), &providers.Request{Model: "m", Messages: []providers.Message{{Role: "user", Content: "hi"}}}, nil); err != nil || resp.Message.Content != "again" {
		t.Fatalf("resp %+v, err %v", resp, err)
	}
}

// A chain falls back from a hung provider at once: no retry in place,
// which would wait the whole limit again.
func TestChainFallsBackAfterFirstByteTimeout(t *testing.T) {
	hung := providertest.NewServer(t)
	good := providertest.NewServer(t)
	hc, err := providers.NewClient(&providers.ClientOptions{Name: "hung", BaseURL: hung.URL(), FirstByteTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	gc, err := providers.NewClient(&providers.ClientOptions{Name: "good", BaseURL: good.URL()})
	if err != nil {
		t.Fatal(err)
	}
	chain, err := providers.NewChain(&providers.ChainOptions{Candidates: []providers.Candidate{
		{Provider: "hung", Model: "a", Client: hc, MaxRetries: 2},
		{Provider: "good", Model: "b", Client: gc},
	}})
	if err != nil {
		t.Fatal(err)
	}
	hung.Enqueue(providertest.Reply{HangAfterHeaders: true}, providertest.Reply{HangAfterHeaders: true}, providertest.Reply{HangAfterHeaders: true})
	good.Enqueue(providertest.Text("from the fallback"))
	resp, err := chain.ChatStream(context.Background(), &providers.Request{Messages: []providers.Message{{Role: "user", Content: "hi"}}}, nil)
	if err != nil || resp.Message.Content != "from the fallback" {
		t.Fatalf("resp %+v, err %v", resp, err)
	}
	if n := len(hung.Requests()); n != 1 {
		t.Errorf("the hung provider was asked %d times, want 1", n)
	}
}
