package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/apiserver"
	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/tools"
)

// toolWrapper rebuilds the tool registry before the agent is made; serve
// uses it to report tool progress. A nil wrapper leaves the registry alone.
type toolWrapper func(*tools.Registry) (*tools.Registry, error)

func (a *app) serveCommand() *cobra.Command {
	var listen string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the agent over an OpenAI-compatible HTTP API (and, with api.webui, a web chat)",
		Long: "Serves POST /v1/chat/completions, GET /v1/models, POST /v1/embeddings and\n" +
			"POST /v1/audio/transcriptions with bearer authentication (api.api_keys), plus /healthz.\n" +
			"Every chat request runs the full agent; the request's user field selects the conversation.\n" +
			"With api.webui true it also serves a browser chat page at /.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.serve(cmd.Context(), listen, cmd.Flags().Changed("listen"))
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "", "address to bind, host:port (default api.listen, else "+apiserver.DefaultListen+")")
	return cmd
}

func (a *app) serve(ctx context.Context, listenFlag string, flagSet bool) error {
	a.wrapTools = progressTools
	a.lenientConfig = true
	rt, err := a.loadRuntime()
	if err != nil {
		return err
	}
	defer rt.Close()
	defer a.startHealthFile(ctx, rt.home)()
	api := rt.cfg.API
	if flagSet {
		api.Listen = listenFlag
	}
	addr, err := api.ListenAddr()
	if err != nil {
		return err
	}
	stt, emb, err := services(rt.cfg)
	if err != nil {
		return err
	}
	srv, err := apiserver.New(&apiserver.Options{
		Agent:       &agentAdapter{agent: rt.agent, provider: rt.endpoint.Provider},
		APIKeys:     api.Keys(),
		WebUI:       api.WebUI,
		Transcripts: transcriptReader{store: rt.sessions},
		Transcriber: stt,
		Embedder:    emb,
		Logger:      a.log,
		Setup: apiserver.Setup{
			APIKeys:     "api.api_keys",
			Transcriber: "set stt.provider (and stt.model) in config.json",
			Embedder:    "set embeddings.provider (and embeddings.model if that provider has no default) in config.json",
		},
	})
	if err != nil {
		if errors.Is(err, apiserver.ErrNoAPIKey) {
			return fmt.Errorf("joshbot serve refuses to start without authentication: add a key to api.api_keys in %s (for example the output of `openssl rand -hex 32`)", a.configLabel())
		}
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("api.listen %s: %w", addr, err)
	}
	bound := ln.Addr().(*net.TCPAddr)
	if !bound.IP.IsLoopback() {
		a.log.Warn("the API is reachable from other machines over plain HTTP; put it behind TLS or set api.listen to 127.0.0.1", "listen", bound.String())
	}
	idle := a.idler()
	hs := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			defer idle.Busy()()
			srv.ServeHTTP(w, r)
		}),
		ReadHeaderTimeout: 10 * time.Second,
		// Bodies are small except audio; a minute covers 25 MiB on a slow
		// link. Streams set their own write deadlines, so there is no
		// server-wide WriteTimeout to cut a long turn.
		ReadTimeout:    time.Minute,
		IdleTimeout:    2 * time.Minute,
		MaxHeaderBytes: 64 << 10,
		ErrorLog:       slog.NewLogLogger(a.log.Handler(), slog.LevelDebug),
	}
	web := "off"
	if api.WebUI {
		web = "on at http://" + bound.String() + "/"
	}
	fmt.Fprintf(a.stdout, "joshbot serve: listening on http://%s (web UI %s)\n", bound.String(), web)

	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	go idle.Run(ctx)
	// Requests in flight, then the learning and compaction that follow
	// their turns, get ten seconds from the stop signal; a second signal
	// stops the process at once.
	var serveErr error
	select {
	case serveErr = <-errc:
		serveErr = fmt.Errorf("serve: %w", serveErr)
	case <-ctx.Done():
	}
	stop()
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if serveErr == nil {
		if err := hs.Shutdown(shutdown); err != nil {
			hs.Close()
		}
		<-errc
	}
	a.drainAgent(shutdown, rt.agent)
	return serveErr
}

// configLabel names the config file for a message.
func (a *app) configLabel() string {
	p, _, err := a.paths()
	if err != nil {
		return "config.json"
	}
	return tildePath(p)
}

// agentAdapter runs apiserver turns on the real agent.
type agentAdapter struct {
	agent    *agent.Agent
	provider string
}

type progressKey struct{}

// Turn implements apiserver.Agent.
func (ad *agentAdapter) Turn(ctx context.Context, req apiserver.TurnRequest, emit func(apiserver.Event)) (*apiserver.TurnResult, error) {
	var streamDied error
	if emit != nil {
		ctx = agent.WithSink(ctx, func(ev agent.StreamEvent) {
			switch {
			case ev.Err != nil:
				// The agent keeps text already shown when a stream dies
				// mid-answer and ends the turn; an API client needs the
				// failure as a failure, reported in the stream.
				streamDied = ev.Err
			case ev.Notice != "":
				emit(apiserver.Event{Delta: ev.Notice + "\n"})
			case ev.Delta != "":
				emit(apiserver.Event{Delta: ev.Delta})
			}
		})
		ctx = context.WithValue(ctx, progressKey{}, func(p *apiserver.Progress) { emit(apiserver.Event{Progress: p}) })
	}
	reply, err := ad.agent.Process(ctx, agent.Request{SessionKey: req.SessionKey, Text: req.Text, Channel: "api", ChatID: req.User})
	if err == nil && streamDied != nil {
		return nil, &apiserver.Error{Status: http.StatusBadGateway,
			Message: fmt.Sprintf("LLM provider %s: the stream ended unexpectedly mid-answer", ad.provider), Err: streamDied}
	}
	if err != nil {
		if errors.Is(err, agent.ErrIterationLimit) && reply != nil {
			// The agent explains where it stopped and saved its work;
			// that is an answer, cut short, not a failure.
			return &apiserver.TurnResult{Text: reply.Text, Usage: usage(reply.Usage), Truncated: true}, nil
		}
		return nil, ad.publicError(err)
	}
	return &apiserver.TurnResult{Text: reply.Text, Usage: usage(reply.Usage)}, nil
}

func usage(u providers.Usage) apiserver.Usage {
	return apiserver.Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
}

// publicError says what failed in words an API caller may read: the
// provider and the status, never the provider's own text, which can quote
// credentials back.
func (ad *agentAdapter) publicError(err error) error {
	var apiErr *providers.APIError
	var netErr net.Error
	var transportErr *providers.TransportError
	var timeoutErr *providerTimeout
	switch {
	case errors.As(err, &timeoutErr):
		return &apiserver.Error{Status: http.StatusGatewayTimeout, Message: fmt.Sprintf("LLM provider %s timed out after %s (%s)", timeoutErr.provider, timeoutErr.limit, timeoutErr.key), Err: err}
	case errors.As(err, &apiErr):
		return &apiserver.Error{Status: http.StatusBadGateway, Message: fmt.Sprintf("LLM provider %s failed: HTTP %d", apiErr.Provider, apiErr.StatusCode), Err: err}
	case errors.Is(err, agent.ErrTurnTimeout):
		return &apiserver.Error{Status: http.StatusGatewayTimeout, Message: "the turn ran out of time (agents.defaults.timeout)", Err: err}
	case errors.As(err, &transportErr) && transportErr.Timeout:
		return &apiserver.Error{Status: http.StatusGatewayTimeout, Message: fmt.Sprintf("LLM provider %s timed out after %s (providers.%s.timeout)", ad.provider, transportErr.Limit, ad.provider), Err: err}
	case errors.Is(err, providers.ErrStreamInterrupted):
		return &apiserver.Error{Status: http.StatusBadGateway, Message: fmt.Sprintf("LLM provider %s: the stream ended unexpectedly", ad.provider), Err: err}
	case errors.As(err, &transportErr), errors.As(err, &netErr):
		return &apiserver.Error{Status: http.StatusBadGateway, Message: fmt.Sprintf("LLM provider %s could not be reached", ad.provider), Err: err}
	}
	return &apiserver.Error{Status: http.StatusInternalServerError, Message: "the agent failed; the server log has the details", Err: err}
}

// progressTools wraps every registered tool so a call reports itself to the
// progress callback a streamed API turn puts on its context.
func progressTools(reg *tools.Registry) (*tools.Registry, error) {
	out := tools.NewRegistry()
	for _, name := range reg.Names() {
		t, _ := reg.Get(name)
		if err := out.Register(progressTool{t}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

type progressTool struct{ tools.Tool }

func (t progressTool) Execute(ctx context.Context, args json.RawMessage) (string, error) {
	if report, ok := ctx.Value(progressKey{}).(func(*apiserver.Progress)); ok {
		report(&apiserver.Progress{Tool: t.Name(), Detail: summarizeArgs(args)})
	}
	return t.Tool.Execute(ctx, args)
}

// summarizeArgs picks a short line that says what a call is about: its
// path, pattern, command, query or url argument, cut to 80 characters.
func summarizeArgs(args json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return ""
	}
	for _, k := range []string{"path", "pattern", "command", "query", "url"} {
		if s, ok := m[k].(string); ok {
			return clip(s, 80)
		}
	}
	return ""
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// transcriptReader reads a session for the web page: user and assistant
// turns with text only, leaving out tool traffic and system records.
type transcriptReader struct{ store *memory.Store }

func (tr transcriptReader) Transcript(_ context.Context, key string) ([]apiserver.TranscriptMessage, error) {
	sess, err := tr.store.Load(key)
	if err != nil {
		return nil, err
	}
	out := make([]apiserver.TranscriptMessage, 0, len(sess.Messages))
	for _, m := range sess.Messages {
		if (m.Role == providers.RoleUser || m.Role == providers.RoleAssistant) && strings.TrimSpace(m.Content) != "" {
			out = append(out, apiserver.TranscriptMessage{Role: m.Role, Content: m.Content})
		}
	}
	return out, nil
}
