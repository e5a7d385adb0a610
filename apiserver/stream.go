package apiserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// ProgressPrefix starts the SSE comment line that carries a tool progress
// note: ": joshbot.progress {json}". Comments are ignored by every
// conforming SSE parser, the official OpenAI clients included, so the
// extension costs a standard client nothing; joshbot's own page reads them.
const ProgressPrefix = ": joshbot.progress "

// WaitingPrefix starts the SSE comment line that says the model has not
// begun answering yet: ": joshbot.waiting {"seconds":12}". Like the
// progress comment it costs a standard client nothing, and it keeps the
// connection busy for proxies while the model is silent.
const WaitingPrefix = ": joshbot.waiting "

func waitingFrame(d time.Duration) []byte {
	return fmt.Appendf([]byte(WaitingPrefix), "{\"seconds\":%d}\n\n", int(d.Round(time.Second)/time.Second))
}

// stream writes one chat completion as server-sent events in the form the
// OpenAI clients parse: data frames of chat.completion.chunk objects with
// one id and created time, the role in the first delta only, finish_reason
// null until the last choice chunk, an optional usage chunk with empty
// choices, then data: [DONE].
type stream struct {
	w            http.ResponseWriter
	rc           *http.ResponseController
	id           string
	created      int64
	includeUsage bool

	started  bool // headers sent
	roleSent bool
	buf      bytes.Buffer
}

func newStream(w http.ResponseWriter, now time.Time, includeUsage bool) *stream {
	return &stream{w: w, rc: http.NewResponseController(w), id: newID("chatcmpl-"), created: now.Unix(), includeUsage: includeUsage}
}

type chunkChoice struct {
	Index        int            `json:"index"`
	Delta        map[string]any `json:"delta"`
	FinishReason *string        `json:"finish_reason"`
	Logprobs     any            `json:"logprobs"`
}

type chunk struct {
	ID      string        `json:"id"`
	Object  string        `json:"object"`
	Created int64         `json:"created"`
	Model   string        `json:"model"`
	Choices []chunkChoice `json:"choices"`
	// Usage is present (null until the last chunk) only when the client
	// asked for it, as OpenAI does.
	Usage any `json:"usage,omitempty"`
}

func (s *stream) start() {
	if s.started {
		return
	}
	s.started = true
	h := s.w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	// Reverse proxies that buffer would hold the whole answer back.
	h.Set("X-Accel-Buffering", "no")
	s.w.WriteHeader(http.StatusOK)
}

// send writes frame and flushes it to the client.
func (s *stream) send(frame []byte) error {
	s.start()
	// A slow reader must not hold a turn forever, but a long turn must
	// not be cut by a server-wide write timeout either.
	_ = s.rc.SetWriteDeadline(time.Now().Add(time.Minute))
	if _, err := s.w.Write(frame); err != nil {
		return err
	}
	return s.rc.Flush()
}

// done clears the write deadline the stream set: without a server-wide
// WriteTimeout nothing else resets it, and a kept-alive connection would
// carry it into its next response.
func (s *stream) done() {
	if s.started {
		_ = s.rc.SetWriteDeadline(time.Time{})
	}
}

func (s *stream) data(v any) error {
	s.buf.Reset()
	s.buf.WriteString("data: ")
	if err := json.NewEncoder(&s.buf).Encode(v); err != nil {
		return err
	}
	s.buf.WriteString("\n") // Encode wrote one newline; a blank line ends the event.
	return s.send(s.buf.Bytes())
}

// frame encodes v as one data event in a buffer of its own, for a frame
// that waits in an [outq].
func frame(v any) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("data: ")
	if err := json.NewEncoder(&b).Encode(v); err != nil {
		return nil, err
	}
	b.WriteString("\n")
	return b.Bytes(), nil
}

// deltaFrame is the frame [stream.delta] would send.
func (s *stream) deltaFrame(text string) ([]byte, error) {
	d := map[string]any{"content": text}
	role := !s.roleSent
	if role {
		d["role"] = "assistant"
	}
	f, err := frame(s.chunk(d, nil))
	if err == nil && role {
		s.roleSent = true
	}
	return f, err
}

// progressFrame is a tool progress note as one SSE comment line.
func progressFrame(p *Progress) ([]byte, error) {
	body, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	return append(append([]byte(ProgressPrefix), body...), '\n', '\n'), nil
}

func (s *stream) chunk(delta map[string]any, finish *string) *chunk {
	c := &chunk{ID: s.id, Object: "chat.completion.chunk", Created: s.created, Model: ModelID,
		Choices: []chunkChoice{{Index: 0, Delta: delta, FinishReason: finish}}}
	if s.includeUsage {
		c.Usage = json.RawMessage("null")
	}
	return c
}

func (s *stream) delta(text string) error {
	d := map[string]any{"content": text}
	if !s.roleSent {
		d["role"] = "assistant"
		s.roleSent = true
	}
	return s.data(s.chunk(d, nil))
}

func (s *stream) finish(reason string, u Usage) error {
	if !s.roleSent {
		if err := s.delta(""); err != nil {
			return err
		}
	}
	if err := s.data(s.chunk(map[string]any{}, &reason)); err != nil {
		return err
	}
	if s.includeUsage {
		c := &chunk{ID: s.id, Object: "chat.completion.chunk", Created: s.created, Model: ModelID, Choices: []chunkChoice{}, Usage: u}
		if err := s.data(c); err != nil {
			return err
		}
	}
	return s.send([]byte("data: [DONE]\n\n"))
}

// fail reports a failure inside a started stream with an error frame, the
// form the OpenAI clients turn into an exception.
func (s *stream) fail(status int, msg string) error {
	return s.data(map[string]errorBody{"error": {Message: msg, Type: errorType(status), Code: status}})
}
