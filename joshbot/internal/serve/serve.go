package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/apiserver"
	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/providers"
)

// DefaultListen is the address served when neither api.listen nor
// Options.Listen sets one.
const DefaultListen = apiserver.DefaultListen

// Options configure [New]. A nil *Options means the defaults.
type Options struct {
	// Listen, when ListenSet, replaces api.listen (the --listen flag).
	Listen    string
	ListenSet bool
	// Stdout receives the one line that says where it listens; nil
	// discards it.
	Stdout io.Writer
}

// Server is joshbot's OpenAI-compatible HTTP API over one runtime.
type Server struct {
	rt    *runtime.Runtime
	srv   *apiserver.Server
	ln    net.Listener
	log   *slog.Logger
	out   io.Writer
	webui bool
}

// New builds the API server over rt and binds its address: the runtime
// should be loaded with [runtime.ProgressTools] as its WrapTools so
// streamed turns report tool progress. Serving starts with [Server.Run].
func New(rt *runtime.Runtime, o *Options) (*Server, error) {
	if o == nil {
		o = &Options{}
	}
	out := o.Stdout
	if out == nil {
		out = io.Discard
	}
	api := rt.Config.API
	if o.ListenSet {
		api.Listen = o.Listen
	}
	addr, err := api.ListenAddr()
	if err != nil {
		return nil, err
	}
	stt, emb, err := runtime.Services(rt.Config)
	if err != nil {
		return nil, err
	}
	srv, err := apiserver.New(&apiserver.Options{
		Agent:       &agentAdapter{agent: rt.Agent, provider: rt.Endpoint.Provider, sessions: rt.Sessions},
		APIKeys:     api.Keys(),
		WebUI:       api.WebUI,
		Transcripts: transcriptReader{store: rt.Sessions},
		Transcriber: stt,
		Embedder:    emb,
		Logger:      rt.Logger,
		Setup: apiserver.Setup{
			APIKeys:     "api.api_keys",
			Transcriber: "set stt.provider (and stt.model) in config.json",
			Embedder:    "set embeddings.provider (and embeddings.model if that provider has no default) in config.json",
		},
	})
	if err != nil {
		if errors.Is(err, apiserver.ErrNoAPIKey) {
			return nil, fmt.Errorf("joshbot serve refuses to start without authentication: add a key to api.api_keys in %s (for example the output of `openssl rand -hex 32`)", config.Tilde(rt.ConfigPath))
		}
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("api.listen %s: %w", addr, err)
	}
	return &Server{rt: rt, srv: srv, ln: ln, log: rt.Logger, out: out, webui: api.WebUI}, nil
}

// Addr is the address the server is bound to.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Run serves until ctx ends or a SIGINT or SIGTERM arrives, then gives
// requests in flight, and the learning and compaction after their turns,
// ten seconds to finish. It keeps the provider health file while it runs.
func (s *Server) Run(ctx context.Context) error {
	defer s.rt.StartHealthFile(ctx)()
	ln, srv := s.ln, s.srv
	bound := ln.Addr().(*net.TCPAddr)
	if !bound.IP.IsLoopback() {
		s.log.Warn("the API is reachable from other machines over plain HTTP; put it behind TLS or set api.listen to 127.0.0.1", "listen", bound.String())
	}
	idle := s.rt.Idler()
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
		ErrorLog:       slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
	}
	web := "off"
	if s.webui {
		web = "on at http://" + bound.String() + "/"
	}
	fmt.Fprintf(s.out, "joshbot serve: listening on http://%s (web UI %s)\n", bound.String(), web)

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
	s.rt.Drain(shutdown)
	return serveErr
}

// agentAdapter runs apiserver turns on the real agent.
type agentAdapter struct {
	agent    *agent.Agent
	provider string
	sessions *memory.Store
}

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
			case ev.Tool != nil && ev.Tool.Note != "":
				emit(apiserver.Event{Progress: &apiserver.Progress{Tool: ev.Tool.Name, Note: ev.Tool.Note}})
			case ev.Waiting > 0:
				emit(apiserver.Event{Waiting: ev.Waiting})
			case ev.Notice != "":
				emit(apiserver.Event{Delta: ev.Notice + "\n"})
			case ev.Delta != "":
				emit(apiserver.Event{Delta: ev.Delta})
			}
		})
		ctx = runtime.WithProgress(ctx, func(tool, detail string) {
			emit(apiserver.Event{Progress: &apiserver.Progress{Tool: tool, Detail: detail}})
		})
	}
	if len(req.History) > 0 {
		if err := ad.seed(req); err != nil {
			return nil, &apiserver.Error{Status: http.StatusInternalServerError, Message: "starting the conversation from the messages sent failed; the server log has the details", Err: err}
		}
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

// seed begins the new session req.SessionKey with the history the client
// sent, user and assistant text turns as they are. It is staged, not
// synced, so the first token does not wait for the disk: the turn's own
// durable save follows. A session that already has messages is left
// alone (the key is new, so that is not expected).
func (ad *agentAdapter) seed(req apiserver.TurnRequest) error {
	sess, err := ad.sessions.Load(req.SessionKey)
	if err != nil || len(sess.Messages) > 0 {
		return err
	}
	now := time.Now()
	for _, m := range req.History {
		role := providers.RoleUser
		if m.Role == "assistant" {
			role = providers.RoleAssistant
		}
		sess.Messages = append(sess.Messages, memory.Message{Role: role, Content: m.Content, Time: now})
	}
	return ad.sessions.Stage(sess)
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
	var timeoutErr *runtime.ProviderTimeout
	switch {
	case errors.As(err, &timeoutErr):
		return &apiserver.Error{Status: http.StatusGatewayTimeout, Message: fmt.Sprintf("LLM provider %s timed out after %s (%s)", timeoutErr.Provider, timeoutErr.Limit, timeoutErr.Key), Err: err}
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
			out = append(out, apiserver.TranscriptMessage{Role: m.Role, Content: m.Content, Interrupted: m.Kind == memory.KindInterrupted})
		}
	}
	return out, nil
}
