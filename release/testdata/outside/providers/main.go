// Command providers is an outside program that imports the published
// providers module: a streamed chat against the providertest fake server.
package main

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"
	"strings"

	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/providers/providertest"
)

func main() {
	h := providertest.NewHandler()
	defer h.Close()
	srv := httptest.NewServer(h)
	defer srv.Close()
	h.Enqueue(providertest.Reply{Content: "streamed hello", Chunks: 3})
	c, err := providers.NewClient(&providers.ClientOptions{Name: "fake", BaseURL: srv.URL, APIKey: "k"})
	if err != nil {
		log.Fatal(err)
	}
	var parts []string
	resp, err := c.ChatStream(context.Background(), &providers.Request{Model: "m", Messages: []providers.Message{{Role: "user", Content: "hi"}}},
		func(d providers.Delta) {
			if d.Content != "" {
				parts = append(parts, d.Content)
			}
		})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("providers ok: %q in %d deltas\n", resp.Message.Content, len(parts))
	if strings.Join(parts, "") != resp.Message.Content {
		log.Fatalf("deltas %q do not add up to %q", parts, resp.Message.Content)
	}
}
