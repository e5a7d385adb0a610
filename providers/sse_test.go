package providers_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/providers/providertest"
)

// sse joins payloads into an event stream body.
func sse(lines ...string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l)
		b.WriteString("\n\n")
	}
	return b.String()
}

func TestStreamDecoding(t *testing.T) {
	call := func(id, name, args string) providers.ToolCall {
		return providers.ToolCall{ID: id, Type: "function", Function: providers.FunctionCall{Name: name, Arguments: args}}
	}
	tests := []struct {
		name        string
		body        string
		wantDeltas  []string
		wantCalls   []providers.ToolCall
		wantFinish  string
		wantUsage   providers.Usage
		wantModel   string
		interrupted bool
		wantErr     string
	}{
		{
			name: "content, comments, events, usage",
			body: sse(
				": OPENROUTER PROCESSING",
				"event: message\ndata: {\"model\":\"m1\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}",
				`data: {"model":"m1","choices":[{"index":0,"delta":{"content":"Hel"}}]}`,
				"data:{\"model\":\"m1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"}}]}\r",
				`data: {"choices":[{"index":1,"delta":{"content":"other choice"}}]}`,
				`data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
				`data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`,
				`data: [DONE]`,
			),
			wantDeltas: []string{"Hel", "lo"},
			wantFinish: "stop",
			wantUsage:  providers.Usage{PromptTokens: 3, CompletionTokens: 2, TotalTokens: 5},
			wantModel:  "m1",
		},
		{
			name: "nothing after DONE is read",
			body: sse(
				`data: {"choices":[{"delta":{"content":"a"}}]}`,
				`data: [DONE]`,
				`data: {"choices":[{"delta":{"content":"after"}}]}`,
			),
			wantDeltas: []string{"a"},
		},
		{
			name: "malformed line skipped",
			body: sse(
				`data: {"choices":[{"delta":{"content":"a"}}]}`,
				`data: {"choices":[{"delta":{"content":`,
				`data: {"choices":[{"delta":{"content":"b"}}]}`,
				`data: {"choices":[{"delta":{},"finish_reason":"stop"}]}`,
				`data: [DONE]`,
			),
			wantDeltas: []string{"a", "b"},
			wantFinish: "stop",
		},
		{
			name: "tool calls across chunks, out of order, with a gap",
			body: sse(
				`data: {"choices":[{"delta":{"tool_calls":[{"index":2,"id":"c2","type":"function","function":{"name":"write","arguments":""}}]}}]}`,
				`data: {"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c0","type":"function","function":{"name":"read","arguments":"{\"pa"}}]}}]}`,
				`data: {"choices":[{"delta":{"tool_calls":[{"index":2,"function":{"arguments":"{\"x\":"}}]}}]}`,
				`data: {"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"th\":\"a\\\"b\"}"}}]}}]}`,
				`data: {"choices":[{"delta":{"tool_calls":[{"index":2,"function":{"arguments":"1}"}}]}}]}`,
				`data: {"choices":[{"delta":{},"finish_reason":"tool_calls"}]}`,
				`data: [DONE]`,
			),
			wantCalls:  []providers.ToolCall{call("c0", "read", `{"path":"a\"b"}`), call("c2", "write", `{"x":1}`)},
			wantFinish: "tool_calls",
		},
		{
			name: "tool calls without index",
			body: sse(
				`data: {"choices":[{"delta":{"tool_calls":[{"id":"a","function":{"name":"f","arguments":"{\"n\":"}}]}}]}`,
				`data: {"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"1}"}}]}}]}`,
				`data: {"choices":[{"delta":{"tool_calls":[{"id":"b","function":{"name":"g","arguments":{"n":2}}}]}}]}`,
				`data: {"choices":[{"delta":{},"finish_reason":"tool_calls"}]}`,
			),
			wantCalls:  []providers.ToolCall{call("a", "f", `{"n":1}`), call("b", "g", `{"n":2}`)},
			wantFinish: "tool_calls",
		},
		{
			name: "finish reason without DONE is complete",
			body: sse(
				`data: {"choices":[{"delta":{"content":"x"}}]}`,
				`data: {"choices":[{"delta":{},"finish_reason":"length"}]}`,
			),
			wantDeltas: []string{"x"},
			wantFinish: "length",
		},
		{
			name: "ends without DONE or finish",
			body: sse(
				`data: {"choices":[{"delta":{"content":"half"}}]}`,
				`data: not json`,
			),
			wantDeltas:  []string{"half"},
			interrupted: true,
			wantErr:     "fake: stream ended unexpectedly after 1 events (4 bytes of text, 0 tool calls), 1 malformed events skipped, without [DONE] or a finish reason",
		},
		{
			name: "error event",
			body: sse(
				`data: {"choices":[{"delta":{"content":"par"}}]}`,
				"event: error\ndata: {\"error\":{\"message\":\"Provider disconnected\",\"code\":502},\"choices\":[{\"delta\":{},\"finish_reason\":\"error\"}]}",
			),
			wantDeltas: []string{"par"},
			wantErr:    "fake: HTTP 502: Provider disconnected",
		},
		{
			name: "error without status code",
			body: sse(
				`data: {"error":{"message":"context too long","code":"context_length_exceeded"}}`,
			),
			wantErr: "fake: provider error: context too long",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := providertest.NewServer(t)
			srv.Enqueue(providertest.Reply{Body: tt.body})
			var deltas []string
			resp, err := newClient(t, srv.URL()).ChatStream(context.Background(), userRequest("hi"), func(d providers.Delta) {
				deltas = append(deltas, d.Content)
			})
			if resp == nil {
				t.Fatalf("nil response (error %v); a stream always yields a partial response", err)
			}
			if tt.wantErr == "" && err != nil {
				t.Fatalf("ChatStream: %v", err)
			}
			if tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr) {
				t.Fatalf("error = %v, want %q", err, tt.wantErr)
			}
			if errors.Is(err, providers.ErrStreamInterrupted) != tt.interrupted {
				t.Errorf("errors.Is(err, ErrStreamInterrupted) = %v, want %v", !tt.interrupted, tt.interrupted)
			}
			if strings.Join(deltas, "|") != strings.Join(tt.wantDeltas, "|") {
				t.Errorf("deltas = %q, want %q", deltas, tt.wantDeltas)
			}
			if resp.Message.Content != strings.Join(tt.wantDeltas, "") {
				t.Errorf("content = %q, want the deltas joined", resp.Message.Content)
			}
			if !equalCalls(resp.Message.ToolCalls, tt.wantCalls) {
				t.Errorf("tool calls = %+v\nwant %+v", resp.Message.ToolCalls, tt.wantCalls)
			}
			if resp.FinishReason != tt.wantFinish || resp.Usage != tt.wantUsage || resp.Model != tt.wantModel {
				t.Errorf("finish %q usage %+v model %q, want %q %+v %q",
					resp.FinishReason, resp.Usage, resp.Model, tt.wantFinish, tt.wantUsage, tt.wantModel)
			}
		})
	}
}

func TestStreamDies(t *testing.T) {
	for _, die := range []int{1, 2, 3} {
		t.Run("", func(t *testing.T) {
			srv := providertest.NewServer(t)
			srv.Enqueue(providertest.Reply{Content: "partial text here", DieAfterChunks: die})
			var got strings.Builder
			resp, err := newClient(t, srv.URL()).ChatStream(context.Background(), userRequest("hi"), func(d providers.Delta) {
				got.WriteString(d.Content)
			})
			if !errors.Is(err, providers.ErrStreamInterrupted) {
				t.Fatalf("error = %v, want ErrStreamInterrupted", err)
			}
			if resp == nil || resp.Message.Content != got.String() || resp.FinishReason != "" {
				t.Fatalf("partial response = %+v, want the %q delivered so far", resp, got.String())
			}
			if die > 1 && resp.Message.Content == "" {
				t.Errorf("no partial content after %d chunks", die)
			}
			if !strings.Contains(err.Error(), "stream ended unexpectedly after") {
				t.Errorf("error %q does not say the stream broke off", err)
			}
		})
	}
}

func TestStreamServerIgnoresStreamFlag(t *testing.T) {
	srv := providertest.NewServer(t)
	srv.Enqueue(providertest.Reply{Body: `{"choices":[{"message":{"content":"whole"},"finish_reason":"stop"}]}`})
	var deltas []string
	resp, err := newClient(t, srv.URL()).ChatStream(context.Background(), userRequest("hi"), func(d providers.Delta) {
		deltas = append(deltas, d.Content)
	})
	if err != nil || resp.Message.Content != "whole" || len(deltas) != 1 || deltas[0] != "whole" {
		t.Fatalf("got %+v, %v, deltas %q", resp, err, deltas)
	}
}
