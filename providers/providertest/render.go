package providertest

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/joshbot/joshbot/providers"
)

// serve writes reply in the form req asked for.
func (h *Handler) serve(w http.ResponseWriter, r *http.Request, req *Request, reply Reply) {
	if reply.Delay > 0 {
		t := time.NewTimer(reply.Delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			return
		case <-h.closed:
			return
		}
	}
	for k, vs := range reply.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	status := reply.Status
	if status == 0 {
		status = http.StatusOK
	}
	switch {
	case reply.Body != "":
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", guessContentType(reply.Body))
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(reply.Body))
	case status < 200 || status > 299:
		writeError(w, status, http.StatusText(status), "")
	case reply.HangAfterHeaders && !req.Stream:
		h.hang(r)
	case reply.Malformed:
		writeMalformed(w, req, status)
	case reply.DieAfterChunks > 0 && !req.Stream:
		dropConnection(w)
	case req.Stream:
		h.writeStream(w, r, req, &reply, status)
	default:
		h.writeCompletion(w, req, &reply, status)
	}
}

// hang waits until the client goes away or the handler is closed.
func (h *Handler) hang(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-h.closed:
	}
}

// writeMalformed sends a success status with a body no client can decode.
func writeMalformed(w http.ResponseWriter, req *Request, status int) {
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(`{"id":"chatcmpl-providertest","choices":[{"index":0,"message":{"role":"assist`))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(": providertest\n\n" +
		`data: {"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}` + "\n\n" +
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\n\n" +
		"data: not json at all\n\n" +
		`data: {"choices":[{"index":0,"delta":{"content":"lo"}}]` + "}}\n\n" +
		"data: [DONE]\n\n"))
}

func guessContentType(body string) string {
	s := strings.TrimSpace(body)
	switch {
	case strings.HasPrefix(s, "{"), strings.HasPrefix(s, "["):
		return "application/json"
	case strings.HasPrefix(s, "data:"), strings.HasPrefix(s, ":"), strings.HasPrefix(s, "event:"):
		return "text/event-stream"
	case strings.HasPrefix(s, "<"):
		return "text/html; charset=utf-8"
	}
	return "text/plain; charset=utf-8"
}

// dropConnection closes the client's connection mid-response, the way a
// crashing upstream or an impatient proxy does. Where the connection cannot
// be taken over (HTTP/2), the response simply ends early.
func dropConnection(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err == nil {
		_ = conn.Close()
	}
}

func finishReason(reply *Reply) string {
	switch {
	case reply.FinishReason != "":
		return reply.FinishReason
	case len(reply.ToolCalls) > 0:
		return "tool_calls"
	}
	return "stop"
}

func model(req *Request, reply *Reply) string {
	if reply.Model != "" {
		return reply.Model
	}
	return req.Model
}

type completion struct {
	ID      string             `json:"id"`
	Object  string             `json:"object"`
	Created int64              `json:"created"`
	Model   string             `json:"model"`
	Choices []completionChoice `json:"choices"`
	Usage   *providers.Usage   `json:"usage,omitempty"`
}

type completionChoice struct {
	Index   int `json:"index"`
	Message struct {
		Role string `json:"role"`
		// Content is null when the assistant only calls tools, as OpenAI
		// sends it.
		Content   *string              `json:"content"`
		ToolCalls []providers.ToolCall `json:"tool_calls,omitempty"`
	} `json:"message"`
	FinishReason string `json:"finish_reason"`
}

func (h *Handler) writeCompletion(w http.ResponseWriter, req *Request, reply *Reply, status int) {
	c := completion{
		ID:      "chatcmpl-providertest",
		Object:  "chat.completion",
		Created: time.Now().Unix(),
		Model:   model(req, reply),
		Choices: make([]completionChoice, 1),
	}
	ch := &c.Choices[0]
	ch.Message.Role = providers.RoleAssistant
	ch.Message.ToolCalls = h.assignIDs(reply.ToolCalls)
	if reply.Content != "" || len(ch.Message.ToolCalls) == 0 {
		ch.Message.Content = &reply.Content
	}
	ch.FinishReason = finishReason(reply)
	if reply.Usage != (providers.Usage{}) {
		c.Usage = &reply.Usage
	}
	body, err := json.Marshal(&c)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "providertest: encoding reply: "+err.Error(), "")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

type chunk struct {
	ID      string           `json:"id"`
	Object  string           `json:"object"`
	Created int64            `json:"created"`
	Model   string           `json:"model"`
	Choices []chunkChoice    `json:"choices"`
	Usage   *providers.Usage `json:"usage,omitempty"`
}

type chunkChoice struct {
	Index        int        `json:"index"`
	Delta        chunkDelta `json:"delta"`
	FinishReason *string    `json:"finish_reason"`
}

type chunkDelta struct {
	Role      string          `json:"role,omitempty"`
	Content   *string         `json:"content,omitempty"`
	ToolCalls []toolCallDelta `json:"tool_calls,omitempty"`
}

type toolCallDelta struct {
	Index    int    `json:"index"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// writeStream sends reply as server-sent events: a role event, the text in
// pieces, each tool call as a header fragment followed by its arguments in
// pieces, the finish reason, usage if asked for, then [DONE].
func (h *Handler) writeStream(w http.ResponseWriter, r *http.Request, req *Request, reply *Reply, status int) {
	base := chunk{
		ID:      "chatcmpl-providertest",
		Object:  "chat.completion.chunk",
		Created: time.Now().Unix(),
		Model:   model(req, reply),
	}
	var events []chunkChoice
	empty := ""
	events = append(events, chunkChoice{Delta: chunkDelta{Role: providers.RoleAssistant, Content: &empty}})
	pieces := reply.Chunks
	if pieces <= 0 {
		pieces = 4
	}
	for _, p := range split(reply.Content, pieces) {
		events = append(events, chunkChoice{Delta: chunkDelta{Content: &p}})
	}
	for i, call := range h.assignIDs(reply.ToolCalls) {
		head := toolCallDelta{Index: i, ID: call.ID, Type: call.Type}
		head.Function.Name = call.Function.Name
		events = append(events, chunkChoice{Delta: chunkDelta{ToolCalls: []toolCallDelta{head}}})
		for _, p := range split(call.Function.Arguments, min(pieces, 3)) {
			frag := toolCallDelta{Index: i}
			frag.Function.Arguments = p
			events = append(events, chunkChoice{Delta: chunkDelta{ToolCalls: []toolCallDelta{frag}}})
		}
	}
	reason := finishReason(reply)
	events = append(events, chunkChoice{FinishReason: &reason})

	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(status)
	rc := http.NewResponseController(w)
	// Real providers open with keep-alive comments; clients must skip them.
	_, _ = w.Write([]byte(": providertest\n\n"))
	if reply.HangAfterHeaders {
		_ = rc.Flush()
		h.hang(r)
		return
	}

	sent := 0
	send := func(c *chunk) bool {
		if reply.HangAfterChunks > 0 && sent == reply.HangAfterChunks {
			_ = rc.Flush()
			h.hang(r)
			return false
		}
		if reply.DieAfterChunks > 0 && sent == reply.DieAfterChunks {
			_ = rc.Flush()
			dropConnection(w)
			return false
		}
		data, err := json.Marshal(c)
		if err != nil {
			return false
		}
		buf := make([]byte, 0, len(data)+8)
		buf = append(buf, "data: "...)
		buf = append(buf, data...)
		buf = append(buf, "\n\n"...)
		if _, err := w.Write(buf); err != nil {
			return false
		}
		sent++
		return rc.Flush() == nil
	}
	for i := range events {
		c := base
		c.Choices = events[i : i+1]
		if !send(&c) {
			return
		}
	}
	if req.IncludeUsage && reply.Usage != (providers.Usage{}) {
		c := base
		c.Choices = []chunkChoice{}
		c.Usage = &reply.Usage
		if !send(&c) {
			return
		}
	}
	if reply.DieAfterChunks > 0 {
		// The script asked for more events than the reply has; still die
		// rather than end cleanly.
		_ = rc.Flush()
		dropConnection(w)
		return
	}
	_, _ = w.Write([]byte("data: [DONE]\n\n"))
	_ = rc.Flush()
}

// split cuts s into at most n pieces of roughly equal rune count, never
// splitting a rune. Empty s yields no pieces.
func split(s string, n int) []string {
	if s == "" {
		return nil
	}
	runes := utf8.RuneCountInString(s)
	size := max((runes+n-1)/n, 1)
	out := make([]string, 0, n)
	for s != "" {
		i, count := 0, 0
		for i < len(s) && count < size {
			_, w := utf8.DecodeRuneInString(s[i:])
			i += w
			count++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}
