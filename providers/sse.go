package providers

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"
	"sync"
)

// streamChunk is one decoded "data:" payload. A single value is reused for
// every event of a stream so its slices keep their capacity; reset clears it
// because json.Unmarshal leaves absent fields untouched.
type streamChunk struct {
	// Model stays raw so the common case (same model every chunk) costs a
	// byte comparison instead of a string allocation.
	Model   json.RawMessage `json:"model"`
	Choices []streamChoice  `json:"choices"`
	Usage   *Usage          `json:"usage"`
	Error   *wireError      `json:"error"`
}

type streamChoice struct {
	Index int `json:"index"`
	Delta struct {
		Content   string         `json:"content"`
		ToolCalls []wireToolCall `json:"tool_calls"`
	} `json:"delta"`
	FinishReason string `json:"finish_reason"`
}

func (c *streamChunk) reset() {
	c.Model = c.Model[:0]
	c.Usage = nil
	c.Error = nil
	clear(c.Choices[:cap(c.Choices)])
	c.Choices = c.Choices[:0]
}

// callBuilder accumulates the fragments of one streamed tool call.
type callBuilder struct {
	index int
	id    string
	typ   string
	name  string
	args  []byte
}

// streamDecoder turns a chat-completions event stream into a Response.
type streamDecoder struct {
	name    string
	br      *bufio.Reader
	onDelta func(Delta)
	// started, when set, is called at the first data event.
	started func()
	maxLine int
	maxText int

	long  []byte // a line that outgrew the reader's buffer
	chunk streamChunk
	// One json.Decoder fed payload by payload keeps its scanner and
	// decoder state between events; json.Unmarshal would rebuild them for
	// every event.
	dec  *json.Decoder
	feed payloadReader
	fed  int64 // bytes handed to dec so far

	content  strings.Builder
	calls    []callBuilder
	finish   string
	modelRaw []byte
	model    string
	usage    Usage

	events  int // payloads decoded
	skipped int // payloads that were not valid JSON
	text    int // bytes of content and arguments held
	done    bool
}

const readerSize = 64 << 10

var readerPool = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, readerSize) }}

func newStreamDecoder(name string, body io.Reader, onDelta func(Delta), maxLine, maxText int) *streamDecoder {
	br := readerPool.Get().(*bufio.Reader)
	br.Reset(body)
	return &streamDecoder{name: name, br: br, onDelta: onDelta, maxLine: maxLine, maxText: maxText}
}

// release returns the read buffer to the pool; the decoder is unusable after.
func (d *streamDecoder) release() {
	if d.br != nil {
		d.br.Reset(nil)
		readerPool.Put(d.br)
		d.br = nil
	}
}

var (
	dataPrefix = []byte("data:")
	doneMarker = []byte("[DONE]")
)

// decode reads events until [DONE] or the end of the body. It always returns
// a non-nil Response holding what arrived, even alongside an error. status
// is the HTTP status, used for errors reported inside the stream.
func (d *streamDecoder) decode(status int) (*Response, error) {
	for !d.done {
		line, rerr := d.readLine()
		if len(line) > 0 {
			if err := d.handleLine(line, status); err != nil {
				return d.response(), err
			}
		}
		if rerr == io.EOF {
			break
		}
		if errors.Is(rerr, errLineTooLong) {
			return d.response(), errorf("%s: %w", d.name, rerr)
		}
		if rerr != nil {
			if d.finish != "" {
				// Everything the model meant to say arrived; only the
				// trailer (usage, [DONE]) was lost.
				slog.Debug("providers: stream closed after finish reason", "provider", d.name, "error", rerr)
				break
			}
			return d.response(), errorf("%s: %w after %s: %w", d.name, ErrStreamInterrupted, d.progress(), rerr)
		}
	}
	if !d.done && d.finish == "" {
		return d.response(), errorf("%s: %w after %s, without [DONE] or a finish reason", d.name, ErrStreamInterrupted, d.progress())
	}
	if d.content.Len() == 0 && len(d.calls) == 0 && (d.events == 0 || d.skipped > 0) {
		// Nothing usable arrived and what did arrive was garbled (or
		// nothing at all did): a broken answer, which must not pass for
		// an empty one the caller would show and save.
		return d.response(), errorf("%s: %w: %s", d.name, ErrMalformedStream, d.progress())
	}
	return d.response(), nil
}

var errLineTooLong = errors.New("stream event line too long")

// readLine returns the next line including its terminator. The slice is
// valid only until the next call.
func (d *streamDecoder) readLine() ([]byte, error) {
	line, err := d.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		d.long = append(d.long[:0], line...)
		for err == bufio.ErrBufferFull && len(d.long) <= d.maxLine {
			line, err = d.br.ReadSlice('\n')
			d.long = append(d.long, line...)
		}
		line = d.long
	}
	if len(line) > d.maxLine {
		return nil, errorf("%w: over %s", errLineTooLong, byteSize(int64(d.maxLine)))
	}
	return line, err
}

func (d *streamDecoder) handleLine(line []byte, status int) error {
	line = bytes.TrimRight(line, "\r\n")
	// Blank lines end events, ':' lines are comments (keep-alives such as
	// OpenRouter's ": OPENROUTER PROCESSING"), and event:, id: and retry:
	// carry nothing this decoder needs: an error event's data line is
	// recognised by its content.
	if len(line) == 0 || line[0] == ':' || !bytes.HasPrefix(line, dataPrefix) {
		return nil
	}
	if d.started != nil {
		d.started()
		d.started = nil
	}
	payload := bytes.TrimSpace(line[len(dataPrefix):])
	if bytes.Equal(payload, doneMarker) {
		d.done = true
		return nil
	}
	if len(payload) == 0 {
		return nil
	}
	return d.handleData(payload, status)
}

func (d *streamDecoder) handleData(payload []byte, status int) error {
	c := &d.chunk
	c.reset()
	if !fastChunk(payload, c) {
		// Not the common shape (see fastChunk): encoding/json decides.
		c.reset()
		if err := d.unmarshal(payload); err != nil {
			d.skipped++
			slog.Warn("providers: skipping malformed stream event", "provider", d.name, "error", err, "data", snippet(payload, 200))
			return nil
		}
	}
	d.events++
	if c.Error != nil {
		return bodyError(d.name, status, c.Error)
	}
	if len(c.Model) > 0 && !bytes.Equal(c.Model, d.modelRaw) {
		d.modelRaw = append(d.modelRaw[:0], c.Model...)
		d.model = rawScalar(c.Model)
	}
	if c.Usage != nil {
		d.usage = *c.Usage
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index != 0 {
			continue // only the first choice is requested; ignore extras
		}
		if s := ch.Delta.Content; s != "" {
			if err := d.grow(len(s)); err != nil {
				return err
			}
			d.content.WriteString(s)
			if d.onDelta != nil {
				d.onDelta(Delta{Content: s})
			}
		}
		for j := range ch.Delta.ToolCalls {
			if err := d.addFragment(&ch.Delta.ToolCalls[j]); err != nil {
				return err
			}
		}
		if ch.FinishReason != "" {
			d.finish = ch.FinishReason
		}
	}
	return nil
}

var errTrailingData = errors.New("data after the JSON value")

// unmarshal decodes one payload into d.chunk.
func (d *streamDecoder) unmarshal(payload []byte) error {
	if d.dec == nil {
		d.dec = json.NewDecoder(&d.feed)
		d.fed = 0
	}
	d.feed.b = payload
	d.fed += int64(len(payload))
	err := d.dec.Decode(&d.chunk)
	if err == nil && (len(d.feed.b) > 0 || d.dec.InputOffset() != d.fed) {
		err = errTrailingData
	}
	if err != nil {
		// A syntax error leaves the decoder stuck and trailing bytes would
		// corrupt the next event, so start afresh after any failure.
		d.dec = nil
		d.feed.b = nil
	}
	return err
}

// payloadReader hands one event's payload to the json.Decoder, then reports
// EOF so that a truncated payload fails instead of blocking.
type payloadReader struct{ b []byte }

func (p *payloadReader) Read(dst []byte) (int, error) {
	if len(p.b) == 0 {
		return 0, io.EOF
	}
	n := copy(dst, p.b)
	p.b = p.b[n:]
	return n, nil
}

func (d *streamDecoder) grow(n int) error {
	d.text += n
	if d.text > d.maxText {
		return mark(errTooLarge, errorf("%s: streamed answer exceeds the %s limit", d.name, byteSize(int64(d.maxText))))
	}
	return nil
}

// addFragment merges one tool-call delta into the call with the same index.
// The id, type and name arrive in a call's first fragment; arguments arrive
// in pieces to be concatenated.
func (d *streamDecoder) addFragment(f *wireToolCall) error {
	b := d.callFor(f)
	if b.id == "" {
		b.id = f.ID
	}
	if b.typ == "" {
		b.typ = f.Type
	}
	if b.name == "" {
		b.name = f.Function.Name
	}
	before := len(b.args)
	b.args = appendArguments(b.args, f.Function.Arguments)
	return d.grow(len(b.args) - before)
}

// callFor finds or creates the builder a fragment belongs to. Servers that
// omit the index are matched by id, or else continue the latest call.
func (d *streamDecoder) callFor(f *wireToolCall) *callBuilder {
	var idx int
	switch {
	case f.Index != nil:
		idx = *f.Index
	case f.ID != "":
		for i := range d.calls {
			if d.calls[i].id == f.ID {
				return &d.calls[i]
			}
		}
		idx = d.nextIndex()
	case len(d.calls) > 0:
		return &d.calls[len(d.calls)-1]
	}
	// Search from the end: fragments almost always continue the newest call.
	for i := len(d.calls) - 1; i >= 0; i-- {
		if d.calls[i].index == idx {
			return &d.calls[i]
		}
	}
	d.calls = append(d.calls, callBuilder{index: idx})
	return &d.calls[len(d.calls)-1]
}

func (d *streamDecoder) nextIndex() int {
	next := 0
	for i := range d.calls {
		next = max(next, d.calls[i].index+1)
	}
	return next
}

func (d *streamDecoder) response() *Response {
	out := &Response{
		Message:      Message{Role: RoleAssistant, Content: d.content.String()},
		FinishReason: d.finish,
		Usage:        d.usage,
		Model:        d.model,
	}
	if len(d.calls) == 0 {
		return out
	}
	sort.SliceStable(d.calls, func(i, j int) bool { return d.calls[i].index < d.calls[j].index })
	if d.calls[0].index != 0 || d.calls[len(d.calls)-1].index != len(d.calls)-1 {
		indices := make([]int, len(d.calls))
		for i := range d.calls {
			indices[i] = d.calls[i].index
		}
		slog.Warn("providers: streamed tool-call indices are not contiguous; keeping the calls in index order",
			"provider", d.name, "indices", indices)
	}
	calls := make([]ToolCall, len(d.calls))
	for i := range d.calls {
		b := &d.calls[i]
		calls[i] = ToolCall{
			ID:       b.id,
			Type:     orFunction(b.typ),
			Function: FunctionCall{Name: b.name, Arguments: string(b.args)},
		}
	}
	out.Message.ToolCalls = calls
	return out
}

// progress describes how much of a stream arrived, for error messages.
func (d *streamDecoder) progress() string {
	s := fmt.Sprintf("%d events (%d bytes of text, %d tool calls)", d.events, d.content.Len(), len(d.calls))
	if d.skipped > 0 {
		s += fmt.Sprintf(", %d malformed events skipped", d.skipped)
	}
	return s
}
