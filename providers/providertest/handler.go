package providertest

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"

	"github.com/joshbot/joshbot/providers"
)

// modelID is the one model GET .../models lists.
const modelID = "scripted-model"

// Request is one request the handler received, decoded.
type Request struct {
	// Model is the requested model id.
	Model string
	// Messages is the conversation as sent.
	Messages []providers.Message
	// Tools are the tool definitions sent; nil when none.
	Tools []providers.ToolDefinition
	// Temperature is nil when the request omitted it.
	Temperature *float64
	// MaxTokens is zero when the request omitted it.
	MaxTokens int
	// Stream reports whether the client asked for a stream.
	Stream bool
	// IncludeUsage reports whether stream_options.include_usage was set.
	IncludeUsage bool
	// Raw is the request body exactly as received.
	Raw []byte
	// Header holds the request headers.
	Header http.Header
	// Path is the URL path the request was sent to, query included.
	Path string
}

// Field returns the raw JSON of a top-level body field, such as one merged
// in from [providers.Request.ExtraBody], and whether it was present.
func (r Request) Field(name string) (json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(r.Raw, &m) != nil {
		return nil, false
	}
	v, ok := m[name]
	return v, ok
}

type wireRequest struct {
	Model         string                     `json:"model"`
	Messages      []providers.Message        `json:"messages"`
	Tools         []providers.ToolDefinition `json:"tools"`
	Temperature   *float64                   `json:"temperature"`
	MaxTokens     int                        `json:"max_tokens"`
	Stream        bool                       `json:"stream"`
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

// maxRequestBody bounds what the fake server will read from a client.
const maxRequestBody = 64 << 20

// Handler answers POST requests to any path ending in /chat/completions with
// scripted replies (and those ending in /embeddings or /audio/transcriptions
// with a scripted [Reply.Body], sent verbatim): first those queued by
// [Handler.Enqueue], in order, then
// whatever the fallback set by [Handler.SetFallback] computes. It is safe for
// concurrent use. Create it with [NewHandler]; the zero value is unusable.
type Handler struct {
	mu       sync.Mutex
	queue    []Reply
	fallback func(Request) Reply
	requests []Request
	discard  bool
	key      string
	keySet   bool
	served   int // requests received, for numbering
	callSeq  int // tool-call ids handed out

	// report tells someone about a request the script did not expect.
	report func(msg string)

	closed    chan struct{}
	closeOnce sync.Once
}

// NewHandler returns a handler with an empty script. Requests it cannot
// answer are logged through log/slog; [NewServer] reports them as test
// failures instead.
func NewHandler() *Handler {
	return &Handler{
		closed: make(chan struct{}),
		report: func(msg string) { slog.Error(msg) },
	}
}

// Enqueue appends replies to the script; each request consumes the next one.
func (h *Handler) Enqueue(replies ...Reply) {
	h.mu.Lock()
	h.queue = append(h.queue, replies...)
	h.mu.Unlock()
}

// SetFallback sets a function that computes the reply for any request that
// arrives when the queue is empty, which suits benchmarks and soak tests.
// Nil (the default) makes such a request an error. f may be called
// concurrently.
func (h *Handler) SetFallback(f func(Request) Reply) {
	h.mu.Lock()
	h.fallback = f
	h.mu.Unlock()
}

// RequireKey makes the handler answer 401 unless a request carries
// "Authorization: Bearer <key>". Rejected requests are still recorded but
// consume no reply.
func (h *Handler) RequireKey(key string) {
	h.mu.Lock()
	h.key, h.keySet = key, true
	h.mu.Unlock()
}

// RecordRequests turns recording of received requests on (the default) or
// off. Turn it off in long-running servers so memory stays flat.
func (h *Handler) RecordRequests(on bool) {
	h.mu.Lock()
	h.discard = !on
	h.mu.Unlock()
}

// Requests returns a copy of the requests received so far, in arrival order.
func (h *Handler) Requests() []Request {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]Request, len(h.requests))
	copy(out, h.requests)
	return out
}

// Pending returns how many queued replies have not been served yet.
func (h *Handler) Pending() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.queue)
}

// Close releases any request still waiting out a [Reply.Delay]. It is safe
// to call more than once.
func (h *Handler) Close() {
	h.closeOnce.Do(func() { close(h.closed) })
}

// ServeHTTP answers one chat-completions request from the script.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimSuffix(r.URL.Path, "/")
	if strings.HasSuffix(path, "/models") && r.Method == http.MethodGet {
		// The model list a client probes before use; never scripted.
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"list","data":[{"id":"`+modelID+`","object":"model","owned_by":"providertest"}]}`)
		return
	}
	chat := strings.HasSuffix(path, "/chat/completions")
	if !chat && !strings.HasSuffix(path, "/embeddings") && !strings.HasSuffix(path, "/audio/transcriptions") {
		h.fail(w, http.StatusNotFound, fmt.Sprintf("providertest: unexpected %s %s; only POST .../chat/completions, .../embeddings and .../audio/transcriptions and GET .../models are served", r.Method, r.URL.Path))
		return
	}
	if r.Method != http.MethodPost {
		h.fail(w, http.StatusMethodNotAllowed, fmt.Sprintf("providertest: unexpected %s %s; chat completions must be POSTed", r.Method, r.URL.Path))
		return
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBody))
	if err != nil {
		h.fail(w, http.StatusBadRequest, fmt.Sprintf("providertest: reading request body: %v", err))
		return
	}
	var wr wireRequest
	var decodeErr error
	if chat {
		decodeErr = json.Unmarshal(raw, &wr)
	} else if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		// Embeddings: only the model is of interest; the reply is the
		// scripted Body.
		var m struct {
			Model string `json:"model"`
		}
		decodeErr = json.Unmarshal(raw, &m)
		wr.Model = m.Model
	}
	req := Request{
		Model:        wr.Model,
		Messages:     wr.Messages,
		Tools:        wr.Tools,
		Temperature:  wr.Temperature,
		MaxTokens:    wr.MaxTokens,
		Stream:       wr.Stream,
		IncludeUsage: wr.StreamOptions.IncludeUsage,
		Raw:          raw,
		Header:       r.Header.Clone(),
		Path:         r.URL.RequestURI(),
	}

	h.mu.Lock()
	h.served++
	n := h.served
	if !h.discard {
		h.requests = append(h.requests, req)
	}
	authorized := !h.keySet || r.Header.Get("Authorization") == "Bearer "+h.key
	var reply Reply
	scripted := false
	if decodeErr == nil && authorized && len(h.queue) > 0 {
		reply, scripted = h.queue[0], true
		h.queue[0] = Reply{}
		h.queue = h.queue[1:]
	}
	fallback := h.fallback
	h.mu.Unlock()

	switch {
	case decodeErr != nil:
		h.fail(w, http.StatusBadRequest, fmt.Sprintf("providertest: request #%d has an invalid JSON body: %v", n, decodeErr))
		return
	case !authorized:
		writeError(w, http.StatusUnauthorized, "Incorrect API key provided", "invalid_api_key")
		return
	case !scripted && fallback != nil:
		reply = fallback(req)
	case !scripted:
		h.fail(w, http.StatusInternalServerError, fmt.Sprintf("providertest: unexpected request #%d, no reply scripted", n))
		return
	}
	h.serve(w, r, &req, reply)
}

// fail answers with an error and reports it, because a request the script
// did not plan for is a bug in the test rather than in the client.
func (h *Handler) fail(w http.ResponseWriter, status int, msg string) {
	h.report(msg)
	writeError(w, status, msg, "")
}

func writeError(w http.ResponseWriter, status int, msg, code string) {
	e := map[string]any{"message": msg, "type": "providertest_error"}
	if code != "" {
		e["code"] = code
	}
	body, _ := json.Marshal(map[string]any{"error": e})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// assignIDs copies calls, giving each call without an ID the next id from
// the handler's sequence. The caller's slice is never modified.
func (h *Handler) assignIDs(calls []providers.ToolCall) []providers.ToolCall {
	if len(calls) == 0 {
		return nil
	}
	out := make([]providers.ToolCall, len(calls))
	copy(out, calls)
	h.mu.Lock()
	defer h.mu.Unlock()
	for i := range out {
		if out[i].ID == "" {
			h.callSeq++
			out[i].ID = fmt.Sprintf("call_%d", h.callSeq)
		}
		if out[i].Type == "" {
			out[i].Type = "function"
		}
	}
	return out
}
