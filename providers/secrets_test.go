package providers_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/joshbot/joshbot/providers"
)

const okCompletion = `{"choices":[{"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}`

// headerRecorder serves a completion and remembers the credential headers
// it was sent.
type headerRecorder struct {
	mu   sync.Mutex
	seen []http.Header
}

func (h *headerRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.seen = append(h.seen, r.Header.Clone())
	h.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte(okCompletion))
}

// TestRedirectDropsCredentials: a 307 to another port of the same host, or
// to another scheme or host, does not carry Authorization or an API-key
// header along (issue 18: a provider's 307 to another port kept the
// Authorization header, because net/http compares host names only).
func TestRedirectDropsCredentials(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts func(*providers.ClientOptions)
		hdrs []string
	}{
		{"bearer", func(o *providers.ClientOptions) { o.APIKey = "sk-redirect-test-key-0001" }, []string{"Authorization"}},
		{"api-key header", func(o *providers.ClientOptions) {
			o.APIKey = "azure-redirect-key-0002"
			o.AuthHeader = "api-key"
		}, []string{"Api-Key"}},
		{"x-api-key in Headers", func(o *providers.ClientOptions) {
			o.Headers = map[string]string{"x-api-key": "anthropic-style-key-0003"}
		}, []string{"X-Api-Key"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			other := &headerRecorder{}
			target := httptest.NewServer(other)
			defer target.Close()
			origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, target.URL+r.URL.Path, http.StatusTemporaryRedirect)
			}))
			defer origin.Close()
			c := newClient(t, origin.URL+"/v1", tt.opts)
			if _, err := c.Chat(context.Background(), userRequest("hi")); err != nil {
				t.Fatalf("Chat: %v", err)
			}
			if len(other.seen) != 1 {
				t.Fatalf("the redirect target saw %d requests, want 1", len(other.seen))
			}
			for _, h := range tt.hdrs {
				if v := other.seen[0].Get(h); v != "" {
					t.Errorf("%s: %q reached %s, another port than the one it was meant for", h, v, target.URL)
				}
			}
		})
	}
}

// TestSameOriginRedirectKeepsCredentials: a redirect on the same scheme,
// host and port still authenticates.
func TestSameOriginRedirectKeepsCredentials(t *testing.T) {
	rec := &headerRecorder{}
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/v2/chat/completions", http.StatusTemporaryRedirect)
	})
	mux.Handle("/v2/chat/completions", rec)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c := newClient(t, srv.URL+"/v1", func(o *providers.ClientOptions) { o.APIKey = "sk-same-origin-key-0004" })
	if _, err := c.Chat(context.Background(), userRequest("hi")); err != nil {
		t.Fatalf("Chat: %v", err)
	}
	if got := rec.seen[0].Get("Authorization"); got != "Bearer sk-same-origin-key-0004" {
		t.Fatalf("same-origin redirect lost Authorization: %q", got)
	}
}

// TestCallerCheckRedirectStillRuns: the caller's CheckRedirect is kept,
// and the caller's client is not changed.
func TestCallerCheckRedirectStillRuns(t *testing.T) {
	target := httptest.NewServer(&headerRecorder{})
	defer target.Close()
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer origin.Close()
	stop := errors.New("caller says no")
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return stop }}
	c := newClient(t, origin.URL+"/v1", func(o *providers.ClientOptions) {
		o.HTTPClient = hc
		o.APIKey = "sk-caller-check-key-0005"
	})
	if _, err := c.Chat(context.Background(), userRequest("hi")); !errors.Is(err, stop) {
		t.Fatalf("Chat: %v, want the caller's CheckRedirect error", err)
	}
	if err := hc.CheckRedirect(nil, nil); err != stop {
		t.Fatal("the caller's client was changed")
	}
}

// TestAPIErrorRedactsTheKey: a 401 whose body quotes the key it refused
// yields an error that does not (issue 18: agent -m printed it on stderr).
func TestAPIErrorRedactsTheKey(t *testing.T) {
	const key = "weird-but-real-key-0123456789"
	for _, tt := range []struct{ name, ctype, body string }{
		{"openai json", "application/json", `{"error":{"message":"Incorrect API key provided: ` + key + `. You can find your API key at ...","type":"invalid_request_error","code":"invalid_api_key"}}`},
		{"detail", "application/json", `{"detail":"token ` + key + ` is not valid"}`},
		{"plain text", "text/plain", "unauthorized: Bearer " + key},
		{"html", "text/html", "<html><head><title>401 " + key + "</title></head></html>"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tt.ctype)
				w.WriteHeader(http.StatusUnauthorized)
				w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			c := newClient(t, srv.URL+"/v1", func(o *providers.ClientOptions) { o.APIKey = key })
			_, err := c.Chat(context.Background(), userRequest("hi"))
			var apiErr *providers.APIError
			if !errors.As(err, &apiErr) || apiErr.StatusCode != 401 {
				t.Fatalf("got %v, want an APIError 401", err)
			}
			if strings.Contains(err.Error(), key) || strings.Contains(apiErr.Message, key) {
				t.Fatalf("the key is in the error: %v", err)
			}
			if !strings.Contains(err.Error(), "[REDACTED]") {
				t.Fatalf("want the key's place marked, got %v", err)
			}
		})
	}
}
