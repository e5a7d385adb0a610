package providers_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/providers/providertest"
)

func TestAPIErrors(t *testing.T) {
	longHTML := "<html><head><style>body{color:red}</style></head><body><h1>Bad Gateway</h1>" +
		strings.Repeat("<p>filler text</p>\n", 500) + "</body></html>"
	tests := []struct {
		name      string
		reply     providertest.Reply
		wantError string // exact Error() text
		wantType  string
		wantCode  string
		wantRetry time.Duration
		temporary bool
	}{
		{
			name: "openai shape",
			reply: providertest.Reply{Status: 429, Header: http.Header{"Retry-After": {"3"}},
				Body: `{"error":{"message":"Rate limit exceeded","type":"rate_limit_error","code":"rate_limited"}}`},
			wantError: "fake: HTTP 429: Rate limit exceeded",
			wantType:  "rate_limit_error",
			wantCode:  "rate_limited",
			wantRetry: 3 * time.Second,
			temporary: true,
		},
		{
			name:      "numeric code",
			reply:     providertest.Reply{Status: 400, Body: `{"error":{"message":"bad","code":400}}`},
			wantError: "fake: HTTP 400: bad",
			wantCode:  "400",
		},
		{
			name:      "error string",
			reply:     providertest.Reply{Status: 404, Body: `{"error":"model \"x\" not found, try pulling it first"}`},
			wantError: `fake: HTTP 404: model "x" not found, try pulling it first`,
		},
		{
			name:      "bare message",
			reply:     providertest.Reply{Status: 503, Body: `{"message":"overloaded"}`},
			wantError: "fake: HTTP 503: overloaded",
			temporary: true,
		},
		{
			name:      "detail",
			reply:     providertest.Reply{Status: 422, Body: `{"detail":"field required"}`},
			wantError: "fake: HTTP 422: field required",
		},
		{
			name:      "multi-line message",
			reply:     providertest.Reply{Status: 500, Body: `{"error":{"message":"Traceback:\n  File x\n\tboom"}}`},
			wantError: "fake: HTTP 500: Traceback: File x boom",
			temporary: true,
		},
		{
			name: "html title",
			reply: providertest.Reply{Status: 502,
				Body: "<!DOCTYPE html>\n<html><head><TITLE>502 Bad Gateway &amp; more</TITLE></head><body>" + strings.Repeat("x", 5000) + "</body></html>"},
			wantError: "fake: HTTP 502: 502 Bad Gateway & more",
			temporary: true,
		},
		{
			name:      "html without title",
			reply:     providertest.Reply{Status: 502, Body: longHTML},
			wantError: "fake: HTTP 502: Bad Gateway filler text filler text",
			temporary: true,
		},
		{
			name:      "plain text",
			reply:     providertest.Reply{Status: 500, Body: "  upstream\nconnect error  "},
			wantError: "fake: HTTP 500: upstream connect error",
			temporary: true,
		},
		{
			name:      "empty body",
			reply:     providertest.Reply{Status: 403, Body: " "},
			wantError: "fake: HTTP 403: Forbidden",
		},
		{
			name:      "status only",
			reply:     providertest.Reply{Status: 418},
			wantError: "fake: HTTP 418: I'm a teapot",
			wantType:  "providertest_error",
		},
	}
	for _, tt := range tests {
		for _, stream := range []bool{false, true} {
			t.Run(tt.name+map[bool]string{false: "/chat", true: "/stream"}[stream], func(t *testing.T) {
				srv := providertest.NewServer(t)
				srv.Enqueue(tt.reply)
				c := newClient(t, srv.URL())
				var resp *providers.Response
				var err error
				if stream {
					resp, err = c.ChatStream(context.Background(), userRequest("hi"), nil)
				} else {
					resp, err = c.Chat(context.Background(), userRequest("hi"))
				}
				if resp != nil {
					t.Errorf("got a response alongside an HTTP error: %+v", resp)
				}
				var apiErr *providers.APIError
				if !errors.As(err, &apiErr) {
					t.Fatalf("error %v (%T) is not an *APIError", err, err)
				}
				msg := err.Error()
				if strings.HasSuffix(tt.wantError, "filler text") {
					// Long bodies are cut; check the start and the cap.
					if !strings.HasPrefix(msg, tt.wantError) || !strings.HasSuffix(msg, "…") || len(msg) > 400 {
						t.Errorf("Error() = %q (%d bytes), want a capped %q...", msg, len(msg), tt.wantError)
					}
				} else if msg != tt.wantError {
					t.Errorf("Error() = %q, want %q", msg, tt.wantError)
				}
				if strings.ContainsAny(msg, "\n\r\t") {
					t.Errorf("Error() spans lines: %q", msg)
				}
				if apiErr.StatusCode != tt.reply.Status || apiErr.Type != tt.wantType || apiErr.Code != tt.wantCode {
					t.Errorf("got status %d type %q code %q", apiErr.StatusCode, apiErr.Type, apiErr.Code)
				}
				if apiErr.RetryAfter != tt.wantRetry {
					t.Errorf("RetryAfter = %v, want %v", apiErr.RetryAfter, tt.wantRetry)
				}
				if apiErr.Temporary() != tt.temporary {
					t.Errorf("Temporary() = %v, want %v", apiErr.Temporary(), tt.temporary)
				}
			})
		}
	}
}

func TestTimeout(t *testing.T) {
	const timeout = 300 * time.Millisecond
	t.Run("server never answers", func(t *testing.T) {
		srv := providertest.NewServer(t)
		srv.Enqueue(providertest.Reply{Delay: time.Hour})
		c := newClient(t, srv.URL(), func(o *providers.ClientOptions) { o.Timeout = timeout })
		start := time.Now()
		_, err := c.Chat(context.Background(), userRequest("hi"))
		if elapsed := time.Since(start); elapsed > 5*time.Second {
			t.Errorf("Chat took %v with a %v timeout", elapsed, timeout)
		}
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "fake: request failed: timed out after 300ms") {
			t.Errorf("error = %v, want a timeout naming 300ms", err)
		}
	})
	t.Run("stream stalls", func(t *testing.T) {
		release := make(chan struct{})
		defer close(release)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"so far\"}}]}\n\n"))
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
			case <-release:
			}
		}))
		defer srv.Close()
		c := newClient(t, srv.URL, func(o *providers.ClientOptions) { o.Timeout = timeout })
		start := time.Now()
		resp, err := c.ChatStream(context.Background(), userRequest("hi"), nil)
		if elapsed := time.Since(start); elapsed > 5*time.Second {
			t.Errorf("ChatStream took %v with a %v timeout", elapsed, timeout)
		}
		if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, providers.ErrStreamInterrupted) ||
			!strings.Contains(err.Error(), "timed out after 300ms") {
			t.Errorf("error = %v, want an interrupted stream naming the 300ms timeout", err)
		}
		if resp == nil || resp.Message.Content != "so far" {
			t.Errorf("partial response = %+v, want the text received before the stall", resp)
		}
	})
	t.Run("caller deadline is not blamed on the client timeout", func(t *testing.T) {
		srv := providertest.NewServer(t)
		srv.Enqueue(providertest.Reply{Delay: time.Hour})
		c := newClient(t, srv.URL(), func(o *providers.ClientOptions) { o.Timeout = time.Minute })
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		_, err := c.Chat(ctx, userRequest("hi"))
		if !errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "timed out after") {
			t.Errorf("error = %v, want the caller's deadline without the client-timeout wording", err)
		}
	})
}

func TestOversize(t *testing.T) {
	big := strings.Repeat("a", 4096)
	t.Run("completion body", func(t *testing.T) {
		srv := providertest.NewServer(t)
		srv.Enqueue(providertest.Text(big))
		c := newClient(t, srv.URL())
		providers.SetLimits(c, 1024, 1024)
		_, err := c.Chat(context.Background(), userRequest("hi"))
		if err == nil || !strings.Contains(err.Error(), "exceeds the 1 KiB limit") {
			t.Fatalf("error = %v, want the body refused", err)
		}
	})
	t.Run("completion body without length", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			for range 10 {
				_, _ = w.Write([]byte(big))
				w.(http.Flusher).Flush() // forces chunked encoding: no Content-Length
			}
		}))
		defer srv.Close()
		c := newClient(t, srv.URL)
		providers.SetLimits(c, 1024, 1024)
		_, err := c.Chat(context.Background(), userRequest("hi"))
		if err == nil || !strings.Contains(err.Error(), "exceeds the 1 KiB limit") {
			t.Fatalf("error = %v, want the body refused", err)
		}
	})
	t.Run("stream line", func(t *testing.T) {
		srv := providertest.NewServer(t)
		srv.Enqueue(providertest.Reply{Content: big, Chunks: 1})
		c := newClient(t, srv.URL())
		providers.SetLimits(c, 1<<20, 1024)
		resp, err := c.ChatStream(context.Background(), userRequest("hi"), nil)
		if err == nil || !strings.Contains(err.Error(), "stream event line too long: over 1 KiB") || resp == nil {
			t.Fatalf("error = %v (response nil: %v), want the long line refused", err, resp == nil)
		}
	})
	t.Run("streamed text", func(t *testing.T) {
		srv := providertest.NewServer(t)
		srv.Enqueue(providertest.Reply{Content: big, Chunks: 16})
		c := newClient(t, srv.URL())
		providers.SetLimits(c, 1024, 1<<20)
		_, err := c.ChatStream(context.Background(), userRequest("hi"), nil)
		if err == nil || !strings.Contains(err.Error(), "streamed answer exceeds the 1 KiB limit") {
			t.Fatalf("error = %v, want the stream refused", err)
		}
	})
}

func TestTransportError(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	u := srv.URL
	srv.Close()
	// A credential in the base URL's user information or query must not
	// reach the error.
	base := strings.Replace(u, "http://", "http://user:hunter2@", 1) + "/v1?key=hunter2"
	_, err := newClient(t, base).Chat(context.Background(), userRequest("hi"))
	var te *providers.TransportError
	if !errors.As(err, &te) {
		t.Fatalf("error = %#v, want a *providers.TransportError", err)
	}
	if te.Provider != "fake" || te.Op != "chat/completions" || te.Timeout || te.URL != u+"/v1/chat/completions" {
		t.Errorf("TransportError = %+v, want provider fake, op chat/completions, URL %s/v1/chat/completions, no timeout", te, u)
	}
	var opErr *net.OpError
	if !errors.As(err, &opErr) {
		t.Errorf("Unwrap does not reach the dial error: %v", err)
	}
	if strings.Contains(err.Error(), "hunter2") {
		t.Errorf("error quotes the credential: %v", err)
	}
	if !strings.HasPrefix(err.Error(), "fake: request failed: ") {
		t.Errorf("error = %v, want it prefixed with the provider name", err)
	}
}

func TestTransportErrorTimeout(t *testing.T) {
	srv := providertest.NewServer(t)
	srv.Enqueue(providertest.Reply{Delay: time.Hour})
	c := newClient(t, srv.URL(), func(o *providers.ClientOptions) { o.Timeout = 100 * time.Millisecond })
	_, err := c.Chat(context.Background(), userRequest("hi"))
	var te *providers.TransportError
	if !errors.As(err, &te) || !te.Timeout || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error = %v, want a TransportError with Timeout set wrapping context.DeadlineExceeded", err)
	}
	// A program names its own setting from Limit.
	if te.Limit != 100*time.Millisecond {
		t.Errorf("Limit = %s, want the 100ms that fired", te.Limit)
	}
}

func TestCallerCancel(t *testing.T) {
	srv := providertest.NewServer(t)
	srv.Enqueue(providertest.Reply{Delay: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := newClient(t, srv.URL()).Chat(ctx, userRequest("hi"))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
}
