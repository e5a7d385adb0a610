package apiserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
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
	// prefix is the start of every delta's data event, up to and with
	// `"content":`; made by the first.
	prefix []byte
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

// deltaFrame is the frame [stream.delta] would send, in a buffer of its
// own for a frame that waits in an [outq].
func (s *stream) deltaFrame(text string) ([]byte, error) {
	f, err := s.appendDelta(nil, text, !s.roleSent)
	if err == nil {
		s.roleSent = true
	}
	return f, err
}

// appendDelta appends to dst the data event of a chunk whose delta holds
// text, and the assistant role when role is set. It writes the bytes
// encoding the [chunk] would (the same keys in the same order, the delta's
// in a map's sorted order) without building the chunk: a turn sends one
// per token, and the prefix up to the text is the same for all of them.
func (s *stream) appendDelta(dst []byte, text string, role bool) ([]byte, error) {
	if s.prefix == nil {
		s.prefix = s.appendPrefix(nil)
	}
	quoted, err := json.Marshal(text)
	if err != nil {
		return nil, err
	}
	suffix := `},"finish_reason":null,"logprobs":null}]}` + "\n\n"
	if s.includeUsage {
		suffix = `},"finish_reason":null,"logprobs":null}],"usage":null}` + "\n\n"
	}
	n := len(dst) + len(s.prefix) + len(quoted) + len(suffix)
	if role {
		n += len(roleMember)
	}
	if cap(dst) < n {
		dst = append(make([]byte, 0, n), dst...)
	}
	dst = append(append(dst, s.prefix...), quoted...)
	if role {
		dst = append(dst, roleMember...)
	}
	return append(dst, suffix...), nil
}

// appendPrefix appends the start of every delta's data event, up to and
// with `"content":`, as encoding the [chunk] writes it. It is written by
// hand because it stands before a stream's first byte: encoding a chunk
// costs a dozen allocations and the reflection of its types. The id is
// hex and ModelID plain ASCII, so neither needs escaping.
func (s *stream) appendPrefix(dst []byte) []byte {
	dst = append(dst, `data: {"id":"`...)
	dst = append(dst, s.id...)
	dst = append(dst, `","object":"chat.completion.chunk","created":`...)
	dst = strconv.AppendInt(dst, s.created, 10)
	dst = append(dst, `,"model":"`+ModelID+`","choices":[{"index":0,"delta":{"content":`...)
	return dst
}

// roleMember follows "content" in the first delta: a map's keys are
// encoded sorted.
const roleMember = `,"role":"assistant"`

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
	s.buf.Reset()
	f, err := s.appendDelta(s.buf.AvailableBuffer(), text, !s.roleSent)
	if err != nil {
		return err
	}
	s.roleSent = true
	return s.send(f)
}

func (s *stream) finish(reason string, u Usage) error {
	// The closing events leave in one write and one flush: they are
	// ready together, and each flush is a system call.
	s.buf.Reset()
	if !s.roleSent {
		f, err := s.appendDelta(s.buf.AvailableBuffer(), "", true)
		if err != nil {
			return err
		}
		s.buf.Write(f)
		s.roleSent = true
	}
	enc := json.NewEncoder(&s.buf)
	event := func(v any) error {
		s.buf.WriteString("data: ")
		if err := enc.Encode(v); err != nil {
			return err
		}
		s.buf.WriteString("\n")
		return nil
	}
	if err := event(s.chunk(map[string]any{}, &reason)); err != nil {
		return err
	}
	if s.includeUsage {
		if err := event(&chunk{ID: s.id, Object: "chat.completion.chunk", Created: s.created, Model: ModelID, Choices: []chunkChoice{}, Usage: u}); err != nil {
			return err
		}
	}
	s.buf.WriteString("data: [DONE]\n\n")
	return s.send(s.buf.Bytes())
}

// fail reports a failure inside a started stream with an error frame, the
// form the OpenAI clients turn into an exception.
func (s *stream) fail(status int, msg string) error {
	return s.data(map[string]errorBody{"error": {Message: msg, Type: errorType(status), Code: status}})
}
