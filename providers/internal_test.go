package providers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name   string
		header http.Header
		want   time.Duration
	}{
		{"absent", http.Header{}, 0},
		{"seconds", http.Header{"Retry-After": {"7"}}, 7 * time.Second},
		{"fractional seconds", http.Header{"Retry-After": {"1.5"}}, 1500 * time.Millisecond},
		{"http date", http.Header{"Retry-After": {now.Add(90 * time.Second).Format(http.TimeFormat)}}, 90 * time.Second},
		{"date in the past", http.Header{"Retry-After": {now.Add(-time.Minute).Format(http.TimeFormat)}}, 0},
		{"negative", http.Header{"Retry-After": {"-3"}}, 0},
		{"NaN", http.Header{"Retry-After": {"NaN"}}, 0},
		{"garbage", http.Header{"Retry-After": {"soon"}}, 0},
		{"huge", http.Header{"Retry-After": {"1e300"}}, maxRetryAfter},
		{"milliseconds win", http.Header{"Retry-After": {"2"}, "Retry-After-Ms": {"1234"}}, 1234 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := parseRetryAfter(tt.header, now); got != tt.want {
				t.Errorf("parseRetryAfter = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestOneLine(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"  a \n\t b  ", 10, "a b"},
		{"abcdef", 3, "abc…"},
		{"héllo wörld", 5, "héllo…"},
		{"a\x00b", 10, "a b"},
	}
	for _, tt := range tests {
		if got := oneLine(tt.in, tt.max); got != tt.want {
			t.Errorf("oneLine(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
	}
}

// realisticStream builds a stream the way hosted models send one: a role
// event, many small content events with the full per-event envelope, a tool
// call whose arguments arrive in fragments, a finish event and usage.
func realisticStream(contentEvents int) []byte {
	const envelope = `{"id":"chatcmpl-9x8y7z","object":"chat.completion.chunk","created":1730000000,"model":"openai/gpt-4o-mini","system_fingerprint":"fp_0ba0d124f1","choices":[{"index":0,"delta":%s,"logprobs":null,"finish_reason":%s}]}`
	var b bytes.Buffer
	event := func(delta, finish string) {
		b.WriteString("data: ")
		fmt.Fprintf(&b, envelope, delta, finish)
		b.WriteString("\n\n")
	}
	b.WriteString(": OPENROUTER PROCESSING\n\n")
	event(`{"role":"assistant","content":""}`, "null")
	words := strings.Fields("The quick brown fox jumps over the lazy dog while reading \"config.yaml\" and\n checking é ü 日本 text")
	for i := range contentEvents {
		s, _ := json.Marshal(" " + words[i%len(words)])
		event(`{"content":`+string(s)+`}`, "null")
	}
	event(`{"tool_calls":[{"index":0,"id":"call_abc123","type":"function","function":{"name":"read_file","arguments":""}}]}`, "null")
	for _, frag := range []string{`{\"pa`, `th\": \"src/`, `main.go\", `, `\"limit\": 200}`} {
		event(`{"tool_calls":[{"index":0,"function":{"arguments":"`+frag+`"}}]}`, "null")
	}
	event(`{}`, `"tool_calls"`)
	b.WriteString(`data: {"id":"chatcmpl-9x8y7z","object":"chat.completion.chunk","created":1730000000,"model":"openai/gpt-4o-mini","choices":[],"usage":{"prompt_tokens":812,"completion_tokens":240,"total_tokens":1052}}` + "\n\n")
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

func TestRealisticStream(t *testing.T) {
	data := realisticStream(200)
	var n int
	d := newStreamDecoder("bench", bytes.NewReader(data), func(Delta) { n++ }, maxLineLength, maxResponseBody)
	defer d.release()
	resp, err := d.decode(200)
	if err != nil {
		t.Fatal(err)
	}
	if n != 200 || len(resp.Message.ToolCalls) != 1 || resp.Usage.TotalTokens != 1052 || resp.FinishReason != "tool_calls" {
		t.Fatalf("decoded %d deltas, %+v", n, resp)
	}
	if got := resp.Message.ToolCalls[0].Function.Arguments; got != `{"path": "src/main.go", "limit": 200}` {
		t.Errorf("arguments = %s", got)
	}
}

func BenchmarkSSEDecode(b *testing.B) {
	data := realisticStream(300)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	r := bytes.NewReader(data)
	for b.Loop() {
		r.Reset(data)
		d := newStreamDecoder("bench", r, func(Delta) {}, maxLineLength, maxResponseBody)
		if _, err := d.decode(200); err != nil {
			b.Fatal(err)
		}
		d.release()
	}
}

func conversation50() *Request {
	req := &Request{Model: "anthropic/claude-sonnet-4", MaxTokens: 4096}
	req.Messages = append(req.Messages, Message{Role: RoleSystem, Content: strings.Repeat("You are joshbot, a careful assistant. ", 40)})
	for i := range 49 {
		switch i % 4 {
		case 0:
			req.Messages = append(req.Messages, Message{Role: RoleUser, Content: fmt.Sprintf("Please look at file %d and tell me what <T> & \"x\" do.", i)})
		case 1:
			req.Messages = append(req.Messages, Message{Role: RoleAssistant, ToolCalls: []ToolCall{{
				ID: fmt.Sprintf("call_%d", i), Type: "function",
				Function: FunctionCall{Name: "read_file", Arguments: fmt.Sprintf(`{"path":"src/file%d.go"}`, i)},
			}}})
		case 2:
			req.Messages = append(req.Messages, Message{Role: RoleTool, ToolCallID: fmt.Sprintf("call_%d", i-1),
				Content: strings.Repeat("func main() {\n\tfmt.Println(\"hello\")\n}\n", 30)})
		default:
			req.Messages = append(req.Messages, Message{Role: RoleAssistant, Content: strings.Repeat("The file prints a greeting. ", 10)})
		}
	}
	for _, name := range []string{"read_file", "write_file", "exec", "web_fetch"} {
		req.Tools = append(req.Tools, ToolDefinition{Type: "function", Function: FunctionDefinition{
			Name: name, Description: "Does " + name,
			Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
		}})
	}
	return req
}

func BenchmarkMarshalConversation50(b *testing.B) {
	req := conversation50()
	body, err := marshalRequest(req, true)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := marshalRequest(req, true); err != nil {
			b.Fatal(err)
		}
	}
}

func TestMarshalSplicesExtraBody(t *testing.T) {
	req := conversation50()
	req.ExtraBody = map[string]any{"top_k": 5, "max_tokens": 1, "provider": map[string]any{"order": []string{"a"}}}
	body, err := marshalRequest(req, false)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("spliced body is not JSON: %v", err)
	}
	if string(m["top_k"]) != "5" || string(m["max_tokens"]) != "4096" || string(m["provider"]) != `{"order":["a"]}` {
		t.Errorf("top_k=%s max_tokens=%s provider=%s", m["top_k"], m["max_tokens"], m["provider"])
	}
	if len(m["messages"]) == 0 {
		t.Error("messages lost")
	}
}
