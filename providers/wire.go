package providers

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
)

// A chat-completions body is written in three parts, in this key order,
// which keeps request dumps and goldens stable: the head (model and
// messages: appendHead, or wireHead when attachments need
// [Message.MarshalJSON]), the "tools" array from a [toolCache], then
// wireTail.
type wireHead struct {
	Model    string    `json:"model"`
	Messages []Message `json:"messages"`
}

type wireTail struct {
	Temperature   *float64       `json:"temperature,omitempty"`
	MaxTokens     int            `json:"max_tokens,omitempty"`
	Stream        bool           `json:"stream,omitempty"`
	StreamOptions *streamOptions `json:"stream_options,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

var includeUsage = &streamOptions{IncludeUsage: true}

// marshalRequest encodes req with no tool cache; see [toolCache.marshal].
func marshalRequest(req *Request, stream bool) ([]byte, error) {
	var tc *toolCache
	return tc.marshal(req, stream)
}

// marshal encodes req once; it is the one place a request becomes bytes.
// The tools array comes from tc (nil encodes it afresh). ExtraBody, when
// present, is spliced into the same object rather than round-tripping the
// whole body through a map.
func (tc *toolCache) marshal(req *Request, stream bool) ([]byte, error) {
	for i := range req.Messages {
		if len(req.Messages[i].Images) > 0 || len(req.Messages[i].Documents) > 0 {
			return encodeRequest(req, stream, withToolTypes(req.Messages), tc)
		}
	}
	// A text-only conversation is written by hand (appendHead): the same
	// bytes, without a MarshalJSON call (and its re-validation pass) per
	// message or the reflection of a first encoding.
	return encodeRequest(req, stream, nil, tc)
}

// encodeRequest writes the body; msgs, when not nil, are encoded through
// [Message.MarshalJSON] (attachments), else req.Messages by appendHead.
func encodeRequest(req *Request, stream bool, msgs []Message, tc *toolCache) ([]byte, error) {
	var tools []byte
	if len(req.Tools) > 0 {
		var err error
		if tools, err = tc.encoded(req.Tools); err != nil {
			return nil, err
		}
	}
	tail := wireTail{Temperature: req.Temperature, MaxTokens: req.MaxTokens}
	if stream {
		tail.Stream = true
		tail.StreamOptions = includeUsage
	}

	var buf bytes.Buffer
	buf.Grow(estimateSize(req))
	enc := json.NewEncoder(&buf)
	// Code and markup in messages stay readable in logs and dumps; the
	// escaping buys nothing since the body is never embedded in HTML.
	enc.SetEscapeHTML(false)
	if msgs == nil {
		buf.Write(appendHead(buf.AvailableBuffer(), req.Model, req.Messages))
	} else {
		if err := enc.Encode(&wireHead{Model: req.Model, Messages: msgs}); err != nil {
			return nil, err
		}
		// buf holds `{...head...}\n`: reopen the object.
		buf.Truncate(buf.Len() - 2)
	}
	// Add the tools, then the tail's members, if any, in place of its own
	// braces.
	if len(tools) > 0 {
		buf.WriteString(`,"tools":`)
		buf.Write(tools)
	}
	mark := buf.Len()
	if err := enc.Encode(&tail); err != nil {
		return nil, err
	}
	if buf.Len()-mark == len("{}\n") {
		buf.Truncate(mark)
		buf.WriteByte('}')
	} else {
		buf.Bytes()[mark] = ','
		buf.Truncate(buf.Len() - 1)
	}
	body := buf.Bytes()
	if len(req.ExtraBody) == 0 {
		return body, nil
	}
	extras := make(map[string]any, len(req.ExtraBody))
	for k, v := range req.ExtraBody {
		if !tail.sets(k, len(tools) > 0) {
			extras[k] = v
		}
	}
	if len(extras) == 0 {
		return body, nil
	}
	head := len(body)
	if err := enc.Encode(extras); err != nil {
		return nil, errorf("ExtraBody: %w", err)
	}
	// buf now holds `{...request...}{...extras...}\n`; rewrite it in
	// place as `{...request...,...extras...}`.
	all := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	all[head-1] = ','
	n := copy(all[head:], all[head+1:])
	return all[:head+n], nil
}

// sets reports whether the encoded request carries key, in which case the
// request's own field wins over ExtraBody. The stream keys always belong to
// the client, since the choice of Chat or ChatStream decides them.
func (w *wireTail) sets(key string, tools bool) bool {
	switch key {
	case "model", "messages", "stream", "stream_options":
		return true
	case "tools":
		return tools
	case "temperature":
		return w.Temperature != nil
	case "max_tokens":
		return w.MaxTokens != 0
	}
	return false
}

// withToolTypes fills in the "function" type of tool calls that lack one.
// It copies only when something needs filling, which is rare, so the usual
// request is encoded straight from the caller's slice.
func withToolTypes(msgs []Message) []Message {
	first := -1
	for i := range msgs {
		if missingCallType(msgs[i].ToolCalls) {
			first = i
			break
		}
	}
	if first < 0 {
		return msgs
	}
	out := make([]Message, len(msgs))
	copy(out, msgs)
	for i := first; i < len(out); i++ {
		if !missingCallType(out[i].ToolCalls) {
			continue
		}
		calls := make([]ToolCall, len(out[i].ToolCalls))
		copy(calls, out[i].ToolCalls)
		for j := range calls {
			if calls[j].Type == "" {
				calls[j].Type = "function"
			}
		}
		out[i].ToolCalls = calls
	}
	return out
}

func missingCallType(calls []ToolCall) bool {
	for i := range calls {
		if calls[i].Type == "" {
			return true
		}
	}
	return false
}

func withDefinitionTypes(tools []ToolDefinition) []ToolDefinition {
	for i := range tools {
		if tools[i].Type == "" {
			out := make([]ToolDefinition, len(tools))
			copy(out, tools)
			for j := range out {
				if out[j].Type == "" {
					out[j].Type = "function"
				}
			}
			return out
		}
	}
	return tools
}

// estimateSize guesses the encoded size so the buffer rarely regrows.
func estimateSize(req *Request) int {
	n := 128 + len(req.Model)
	for i := range req.Messages {
		m := &req.Messages[i]
		n += 48 + len(m.Content) + len(m.Content)/16 + len(m.Name) + len(m.ToolCallID)
		for j := range m.Images {
			n += 64 + len(m.Images[j].Data)*4/3
		}
		for j := range m.Documents {
			n += 96 + len(m.Documents[j].Name) + len(m.Documents[j].Data)*4/3
		}
		for j := range m.ToolCalls {
			n += 64 + len(m.ToolCalls[j].ID) + len(m.ToolCalls[j].Function.Name) + len(m.ToolCalls[j].Function.Arguments)*9/8
		}
	}
	for i := range req.Tools {
		n += 64 + len(req.Tools[i].Function.Name) + len(req.Tools[i].Function.Description) + len(req.Tools[i].Function.Parameters)
	}
	return n
}

// wireResponse is a non-streamed chat-completions answer.
type wireResponse struct {
	Model   string       `json:"model"`
	Choices []wireChoice `json:"choices"`
	Usage   *Usage       `json:"usage"`
	Error   *wireError   `json:"error"`
}

// wireChoice is one choice of a whole answer.
type wireChoice struct {
	Message struct {
		Role      string         `json:"role"`
		Content   string         `json:"content"`
		ToolCalls []wireToolCall `json:"tool_calls"`
	} `json:"message"`
	FinishReason string `json:"finish_reason"`
}

// wireToolCall accepts arguments either as the JSON string the spec
// prescribes or as a bare JSON object, which some servers send instead.
type wireToolCall struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// wireError is the "error" member of a body. It accepts both the OpenAI
// object shape and a bare string.
type wireError struct {
	Message string
	Type    string
	Code    string
}

func (e *wireError) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '"' {
		return json.Unmarshal(data, &e.Message)
	}
	var obj struct {
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
	}
	if err := json.Unmarshal(data, &obj); err != nil {
		return err
	}
	e.Message, e.Type, e.Code = obj.Message, obj.Type, rawScalar(obj.Code)
	return nil
}

// rawScalar renders a JSON string or number as plain text; codes arrive as
// either depending on the provider.
func rawScalar(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	}
	return string(raw)
}

// appendArguments appends the text of an arguments value to dst. A string
// is unquoted (without allocating when it has no escapes); an object or other
// value is kept as raw JSON text.
func appendArguments(dst []byte, raw json.RawMessage) []byte {
	if len(raw) == 0 || string(raw) == "null" {
		return dst
	}
	if raw[0] != '"' {
		return append(dst, raw...)
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return append(dst, inner...)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return append(dst, inner...)
	}
	return append(dst, s...)
}

func (c *Client) decodeCompletion(body []byte, status int) (*Response, error) {
	var w wireResponse
	if !fastCompletion(body, &w) {
		w = wireResponse{}
		if err := json.Unmarshal(body, &w); err != nil {
			return nil, errorf("%s: decode response: %w (body starts %q)", c.name, err, snippet(body, 120))
		}
	}
	if w.Error != nil && len(w.Choices) == 0 {
		return nil, bodyError(c.name, status, w.Error)
	}
	if len(w.Choices) == 0 {
		return nil, errorf("%s: %w", c.name, errNoChoices)
	}
	ch := &w.Choices[0]
	out := &Response{
		Message: Message{
			Role:    RoleAssistant,
			Content: ch.Message.Content,
		},
		FinishReason: ch.FinishReason,
		Model:        w.Model,
	}
	if w.Usage != nil {
		out.Usage = *w.Usage
	}
	if n := len(ch.Message.ToolCalls); n > 0 {
		calls := make([]ToolCall, n)
		for i := range ch.Message.ToolCalls {
			tc := &ch.Message.ToolCalls[i]
			calls[i] = ToolCall{
				ID:   tc.ID,
				Type: orFunction(tc.Type),
				Function: FunctionCall{
					Name:      tc.Function.Name,
					Arguments: string(appendArguments(nil, tc.Function.Arguments)),
				},
			}
		}
		out.Message.ToolCalls = calls
	}
	return out, nil
}

var errNoChoices = errors.New("response has no choices")

func orFunction(t string) string {
	if t == "" {
		return "function"
	}
	return t
}

// bodyError turns an error reported inside a success body into an APIError.
// A numeric code in the error status range is taken as the real status,
// since that is how OpenRouter relays upstream failures.
func bodyError(name string, status int, e *wireError) *APIError {
	if n, err := strconv.Atoi(e.Code); err == nil && n >= 400 && n <= 599 {
		status = n
	}
	return &APIError{
		Provider:   name,
		StatusCode: status,
		Message:    oneLine(e.Message, maxMessageLen),
		Type:       e.Type,
		Code:       e.Code,
	}
}
