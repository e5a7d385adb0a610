package apiserver

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// DefaultListen is the address joshbot serve binds when api.listen is
// empty: loopback only, because a caller of this API reaches the agent's
// shell and filesystem tools.
const DefaultListen = "127.0.0.1:18791"

// ModelID is the one model GET /v1/models advertises. The served model is
// the agent, whatever model a request names.
const ModelID = "joshbot"

// Limits enforced before any work is done.
const (
	// MaxBodyBytes caps every request body except an audio upload.
	MaxBodyBytes = 1 << 20
	// MaxAudioBytes caps an uploaded recording; the upstream
	// transcription endpoints refuse larger files anyway.
	MaxAudioBytes = 25 << 20
	// MaxEmbeddingInputs caps the inputs of one embeddings request.
	MaxEmbeddingInputs = 128
	// MaxEmbeddingInputBytes caps each embeddings input.
	MaxEmbeddingInputBytes = 64 << 10
	// MaxUserLen caps the user field, which becomes part of a file name.
	MaxUserLen = 64
)

// ErrNoAPIKey is returned by [New] when no usable key is configured. There
// is no unauthenticated mode.
var ErrNoAPIKey = errors.New("no API key configured: add at least one non-blank key to Options.APIKeys")

// Options configures a [Server]. Agent and at least one of APIKeys are
// required.
type Options struct {
	// Agent answers chat completions.
	Agent Agent
	// APIKeys are the bearer tokens accepted; blank entries are dropped.
	APIKeys []string
	// Embedder serves POST /v1/embeddings; nil answers 501 with
	// Setup.Embedder.
	Embedder Embedder
	// Transcriber serves POST /v1/audio/transcriptions; nil answers 501
	// with Setup.Transcriber.
	Transcriber Transcriber
	// WebUI serves the browser chat page and its routes. False (the
	// default) makes every web route 404 and ignores session cookies.
	WebUI bool
	// Transcripts lets the web page show a conversation again after a
	// reload; required when WebUI is true.
	Transcripts TranscriptReader
	// Logger receives operational logs; nil means slog.Default(). No API
	// key is ever logged.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// MaxWebSessions bounds the browser sessions held in memory; zero
	// means 64. The oldest session is dropped to admit a new login.
	MaxWebSessions int
	// WebSessionTTL is how long a browser session lives after its last
	// use; zero means 12 hours.
	WebSessionTTL time.Duration
	// Setup says, in the errors clients read, how the operator configures
	// what a request needed; a program passes the words of its own
	// configuration.
	Setup Setup
	// StreamBuffer bounds the bytes of a streamed answer held for a client
	// that reads slower than the turn writes; zero means
	// DefaultStreamBuffer. The turn never waits for the client: beyond
	// the bound, the rest of the answer is sent from the saved answer
	// once the turn has ended.
	StreamBuffer int
	// MaxConversations bounds the conversations derived from requests
	// without a user field that the server remembers, in memory, to
	// continue; zero means DefaultMaxConversations. Beyond it the one
	// used longest ago is forgotten: a later request continuing it
	// starts a new session seeded from the history the client sends.
	MaxConversations int
}

// Setup is what the server tells a client about configuring it. Every
// field is optional.
type Setup struct {
	// APIKeys names where the accepted keys are configured, in the 401
	// answer ("Bearer <one of APIKeys>"); empty means "the server's API
	// keys".
	APIKeys string
	// Transcriber says how to enable speech to text, after "speech to
	// text is not configured: "; empty says only that it is not.
	Transcriber string
	// Embedder says how to enable embeddings, after "embeddings are not
	// configured: "; empty says only that they are not.
	Embedder string
}

// Server is the HTTP API. It is an http.Handler and safe for concurrent
// use; create it with [New].
type Server struct {
	agent       Agent
	keys        [][32]byte
	embedder    Embedder
	transcriber Transcriber
	webui       bool
	transcripts TranscriptReader
	log         *slog.Logger
	now         func() time.Time
	setup       Setup
	rejections  *rejectLog
	web         *webSessions
	mux         *http.ServeMux
	// streamBuffer is Options.StreamBuffer; peakQueued is the most bytes
	// one stream has held for its client, which tests read.
	streamBuffer int
	peakQueued   atomic.Int64
	// convs maps the histories clients send to derived conversations.
	convs *conversations
}

// notePeak records how many bytes q held at most.
func (s *Server) notePeak(q *outq) {
	q.mu.Lock()
	p := int64(q.peak)
	q.mu.Unlock()
	for {
		old := s.peakQueued.Load()
		if p <= old || s.peakQueued.CompareAndSwap(old, p) {
			return
		}
	}
}

// New checks opts and returns a Server. It fails with [ErrNoAPIKey] when no
// usable key is left after dropping blank ones, before anything listens.
func New(opts *Options) (*Server, error) {
	if opts == nil || opts.Agent == nil {
		return nil, errors.New("apiserver: Options.Agent is required")
	}
	s := &Server{
		agent:       opts.Agent,
		embedder:    opts.Embedder,
		transcriber: opts.Transcriber,
		webui:       opts.WebUI,
		setup:       opts.Setup,
		transcripts: opts.Transcripts,
		log:         opts.Logger,
		now:         opts.Now,

		streamBuffer: opts.StreamBuffer,
		convs:        newConversations(opts.MaxConversations),
	}
	for _, k := range opts.APIKeys {
		if k = strings.TrimSpace(k); k != "" {
			s.keys = append(s.keys, hashKey(k))
		}
	}
	if len(s.keys) == 0 {
		return nil, ErrNoAPIKey
	}
	if s.webui && s.transcripts == nil {
		return nil, errors.New("apiserver: Options.Transcripts is required when WebUI is on")
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.rejections = newRejectLog(s.log, s.now)
	s.web = newWebSessions(opts.MaxWebSessions, opts.WebSessionTTL, s.now)

	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", s.healthz)
	mux.Handle("GET /v1/models", s.requireAuth(http.HandlerFunc(s.models)))
	mux.Handle("POST /v1/chat/completions", s.requireAuth(http.HandlerFunc(s.chat)))
	mux.Handle("POST /v1/embeddings", s.requireAuth(http.HandlerFunc(s.embeddings)))
	mux.Handle("POST /v1/audio/transcriptions", s.requireAuth(http.HandlerFunc(s.transcriptions)))
	if s.webui {
		s.registerWebUI(mux)
	}
	s.mux = mux
	return s, nil
}

// ServeHTTP answers one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	// Nothing but the web page ever needs to load or run anything; its
	// handlers replace this policy with the one the page needs.
	h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
	// Unmatched routes fall through to the mux's 404, which is how every
	// web route reads when the web UI is off.
	if _, pattern := s.mux.Handler(r); pattern == "" {
		writeError(w, http.StatusNotFound, "not_found", "no route "+r.Method+" "+r.URL.Path)
		return
	}
	s.mux.ServeHTTP(w, r)
}

func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (s *Server) models(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"object": "list",
		"data": []map[string]any{{
			"id": ModelID, "object": "model", "created": 0, "owned_by": "joshbot",
		}},
	})
}

// writeJSON sends v with status and reports whether it was written.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		status, body = http.StatusInternalServerError, []byte(`{"error":{"message":"encoding the response failed","type":"server_error"}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, err = w.Write(append(body, '\n'))
	return err
}

// errorBody is the OpenAI error object.
type errorBody struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    any     `json:"code"`
}

// writeError sends an OpenAI-shaped error.
func writeError(w http.ResponseWriter, status int, typ, msg string) {
	writeJSON(w, status, map[string]errorBody{"error": {Message: msg, Type: typ, Code: status}})
}

// failure converts an error from an Agent, Embedder or Transcriber into
// the status and public message, logging the whole error.
func (s *Server) failure(r *http.Request, what string, err error) (int, string) {
	var e *Error
	if errors.As(err, &e) {
		status := e.Status
		if status == 0 {
			status = http.StatusBadGateway
		}
		s.log.Warn(what+" failed", "path", r.URL.Path, "status", status, "err", err)
		return status, e.Message
	}
	s.log.Error(what+" failed", "path", r.URL.Path, "err", err)
	return http.StatusBadGateway, what + " failed upstream; the server log has the details"
}

// newID returns a random identifier with prefix.
func newID(prefix string) string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// readJSON decodes a JSON body of at most MaxBodyBytes into v, answering the
// client itself when it cannot.
func readJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	r.Body = http.MaxBytesReader(w, r.Body, MaxBodyBytes)
	dec := json.NewDecoder(r.Body)
	if err := dec.Decode(v); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeError(w, http.StatusRequestEntityTooLarge, "invalid_request_error", "request body is over the 1 MiB limit")
			return false
		}
		writeError(w, http.StatusBadRequest, "invalid_request_error", "request body is not valid JSON for this endpoint: "+err.Error())
		return false
	}
	if dec.More() {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "request body has data after the JSON object")
		return false
	}
	return true
}

// keysName names where the accepted keys are configured.
func (s *Server) keysName() string {
	if s.setup.APIKeys == "" {
		return "the server's API keys"
	}
	return s.setup.APIKeys
}

// withHint is msg, followed by hint when there is one.
func withHint(msg, hint string) string {
	if hint == "" {
		return msg
	}
	return msg + ": " + hint
}
