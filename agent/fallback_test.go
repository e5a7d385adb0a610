package agent_test

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/providers/providertest"
)

// chainAgent wires an agent to a chain of two scripted providers whose
// primary fails over at once.
func chainAgent(t *testing.T, quiet bool) (*agent.Agent, *providertest.Server, *providertest.Server, *memory.Store) {
	t.Helper()
	prim, back := providertest.NewServer(t), providertest.NewServer(t)
	mk := func(name string, srv *providertest.Server) providers.Provider {
		c, err := providers.NewClient(&providers.ClientOptions{Name: name, BaseURL: srv.URL()})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	chain, err := providers.NewChain(&providers.ChainOptions{
		Candidates: []providers.Candidate{
			{Provider: "openrouter", Model: "gpt-4o", Client: mk("openrouter", prim)},
			{Provider: "groq", Model: "llama-3.3-70b-versatile", Client: mk("groq", back)},
		},
		Sleep:  func(context.Context, time.Duration) error { return nil },
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	store, err := memory.NewStore(filepath.Join(t.TempDir(), "sessions"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(chain, "gpt-4o", store, &agent.Options{Requests: agent.RequestOptions{ProviderName: "openrouter", QuietFallback: quiet}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Wait)
	return a, prim, back, store
}

const wantNotice = "[fallback] openrouter (gpt-4o) failed (HTTP 503: overloaded); answered by groq (llama-3.3-70b-versatile)."

func TestFallbackNoticeOpensReply(t *testing.T) {
	for _, tt := range []struct {
		name   string
		stream bool
		quiet  bool
	}{
		{"plain", false, false},
		{"streamed", true, false},
		{"plain quiet", false, true},
		{"streamed quiet", true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a, prim, back, store := chainAgent(t, tt.quiet)
			prim.Enqueue(providertest.Error(503, "overloaded"))
			back.Enqueue(providertest.Text("Hello from the fallback."))
			ctx := context.Background()
			var shown strings.Builder
			var notices []string
			if tt.stream {
				ctx = agent.WithSink(ctx, func(ev agent.StreamEvent) {
					if ev.Notice != "" {
						notices = append(notices, ev.Notice)
					}
					shown.WriteString(ev.Delta)
				})
			}
			reply, err := a.Process(ctx, agent.Request{SessionKey: "cli:f", Text: "hi"})
			if err != nil {
				t.Fatal(err)
			}
			want := wantNotice + "\nHello from the fallback."
			if tt.quiet {
				want = "Hello from the fallback."
			}
			if reply.Text != want {
				t.Errorf("reply = %q\nwant   %q", reply.Text, want)
			}
			if tt.stream && shown.String() != "Hello from the fallback." {
				t.Errorf("streamed = %q, want the answer alone (the notice is an event of its own)", shown.String())
			}
			if wantNotices := !tt.quiet && tt.stream; wantNotices != (len(notices) == 1 && notices[0] == wantNotice) {
				t.Errorf("notice events = %q (quiet %v)", notices, tt.quiet)
			}
			if !tt.quiet && reply.Notice != wantNotice {
				t.Errorf("reply.Notice = %q", reply.Notice)
			}
			// The notice is for the person, not the model's history.
			sess, _ := store.Load("cli:f")
			if got := sess.Messages[len(sess.Messages)-1].Content; got != "Hello from the fallback." {
				t.Errorf("stored answer = %q", got)
			}
		})
	}
}

func TestChainExhaustedIsNotRetriedAgain(t *testing.T) {
	a, prim, back, _ := chainAgent(t, false)
	prim.Enqueue(providertest.Error(503, "a"))
	back.Enqueue(providertest.Error(503, "b"))
	ctx := agent.WithSink(context.Background(), func(agent.StreamEvent) {})
	reply, err := a.Process(ctx, agent.Request{SessionKey: "cli:x", Text: "hi"})
	if err == nil || !strings.Contains(reply.Text, "all 2 models failed") {
		t.Fatalf("reply %+v, err %v", reply, err)
	}
	// With no retry budget each model is asked once (the primary by
	// stream); the agent must not start a second, non-streaming round.
	if len(prim.Requests()) != 1 || len(back.Requests()) != 1 {
		t.Fatalf("requests: primary %d, fallback %d", len(prim.Requests()), len(back.Requests()))
	}
}
