package providers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/providers/providertest"
)

func TestCopilotTokensExchangeAndRefresh(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	var exchanges atomic.Int32
	gh := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "token gho_device" {
			http.Error(w, "bad credentials", http.StatusUnauthorized)
			return
		}
		n := exchanges.Add(1)
		fmt.Fprintf(w, `{"token":"tid=session-%d","expires_at":%d}`, n, now.Add(30*time.Minute).Unix())
	}))
	defer gh.Close()
	src := &providers.CopilotTokens{GitHubToken: "gho_device", URL: gh.URL, Now: func() time.Time { return now }}

	api := providertest.NewServer(t)
	api.RequireKey("tid=session-1")
	api.Enqueue(providertest.Text("one"), providertest.Text("two"))
	c, err := providers.NewClient(&providers.ClientOptions{Name: "github_copilot", BaseURL: api.URL(), Credential: src.Token})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, want := range []string{"one", "two"} {
		resp, err := c.Chat(ctx, &providers.Request{Model: "gpt-4o", Messages: []providers.Message{{Role: "user", Content: "hi"}}})
		if err != nil || resp.Message.Content != want {
			t.Fatalf("chat: %v %v", resp, err)
		}
	}
	if exchanges.Load() != 1 {
		t.Fatalf("%d exchanges for two requests inside the token's life, want 1", exchanges.Load())
	}
	now = now.Add(29*time.Minute + 30*time.Second) // within a minute of expiry
	tok, err := src.Token(ctx)
	if err != nil || tok != "tid=session-2" || exchanges.Load() != 2 {
		t.Fatalf("refresh: %q %v after %d exchanges", tok, err, exchanges.Load())
	}

	bad := &providers.CopilotTokens{GitHubToken: "gho_revoked", URL: gh.URL}
	c2, _ := providers.NewClient(&providers.ClientOptions{Name: "github_copilot", BaseURL: api.URL(), Credential: bad.Token})
	_, err = c2.Chat(ctx, &providers.Request{Model: "gpt-4o", Messages: []providers.Message{{Role: "user", Content: "hi"}}})
	if err == nil || !strings.Contains(err.Error(), "HTTP 401: replace CopilotTokens.GitHubToken") || strings.Contains(err.Error(), "joshbot") {
		t.Fatalf("a refused exchange should name the field to change: %v", err)
	}
	// A program names its own way to renew the token.
	renewing := &providers.CopilotTokens{GitHubToken: "gho_revoked", URL: gh.URL, Renew: "log in again"}
	if _, err := renewing.Token(ctx); err == nil || !strings.Contains(err.Error(), "log in again") {
		t.Fatalf("Renew not used: %v", err)
	}
	if n := len(api.Requests()); n != 2 {
		t.Fatalf("a request was sent without a credential: %d requests", n)
	}
}
