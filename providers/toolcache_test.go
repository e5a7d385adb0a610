package providers

import (
	"bytes"
	"encoding/json"
	"testing"
)

// legacyBody is the request as the single-struct encoding wrote it before
// the tools array was cached: the bytes every split encoding must match.
func legacyBody(t *testing.T, req *Request, stream bool) []byte {
	t.Helper()
	l := legacyRequest{Model: req.Model, Tools: withDefinitionTypes(req.Tools), Temperature: req.Temperature, MaxTokens: req.MaxTokens}
	if stream {
		l.Stream, l.StreamOptions = true, includeUsage
	}
	l.Messages = []legacyMessage{}
	for _, m := range req.Messages {
		l.Messages = append(l.Messages, legacyMessage{m.Role, m.Content, m.Name, m.ToolCalls, m.ToolCallID})
	}
	return encodeNoEscape(t, &l)
}

func TestCachedToolsBodyIsByteIdentical(t *testing.T) {
	temp := 0.25
	tc := &toolCache{}
	for _, c := range []struct {
		name   string
		edit   func(*Request)
		stream bool
	}{
		{"streamed with tools", func(*Request) {}, true},
		{"no tail at all", func(r *Request) { r.MaxTokens = 0 }, false},
		{"temperature only", func(r *Request) { r.MaxTokens, r.Temperature = 0, &temp }, false},
		{"every tail field", func(r *Request) { r.Temperature = &temp }, true},
		{"no tools", func(r *Request) { r.Tools = nil }, true},
		{"no tools, no tail", func(r *Request) { r.Tools, r.MaxTokens = nil, 0 }, false},
		{"untyped tool and empty schema", func(r *Request) {
			r.Tools = append(r.Tools, ToolDefinition{Function: FunctionDefinition{Name: "plain", Description: "<b>&</b>"}})
		}, true},
	} {
		for round := range 2 { // the second round is served from the cache
			req := conversation50()
			c.edit(req)
			got, err := tc.marshal(req, c.stream)
			if err != nil {
				t.Fatal(err)
			}
			if want := legacyBody(t, req, c.stream); !bytes.Equal(got, want) {
				t.Fatalf("%s, round %d:\n got %s\nwant %s", c.name, round, tail(got), tail(want))
			}
		}
	}
}

func tail(b []byte) []byte { return b[max(0, len(b)-400):] }

func TestToolCacheReencodesAChangedToolSet(t *testing.T) {
	tc := &toolCache{}
	req := conversation50()
	first, err := tc.encoded(req.Tools)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := tc.encoded(req.Tools); &again[0] != &first[0] {
		t.Fatal("an unchanged tool set was encoded again rather than taken from the cache")
	}
	check := func(what string, tools []ToolDefinition) {
		t.Helper()
		got, err := tc.encoded(tools)
		if err != nil {
			t.Fatal(err)
		}
		want := encodeNoEscape(t, withDefinitionTypes(tools))
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: cached tools are stale\n got %s\nwant %s", what, got, want)
		}
	}
	// The caller edits its schema bytes in place: same slice, same
	// backing array, new content.
	copy(req.Tools[0].Function.Parameters[len(`{"type":"`):], "OBJECT")
	check("schema edited in place", req.Tools)
	req.Tools[1].Function.Description = "Writes a file"
	check("description changed", req.Tools)
	req.Tools[2].Function.Name = "shell"
	check("renamed", req.Tools)
	req.Tools = append(req.Tools, ToolDefinition{Function: FunctionDefinition{Name: "extra", Parameters: json.RawMessage(`{"type":"object"}`)}})
	check("tool added", req.Tools)
	check("tool removed", req.Tools[:2])
	req.Tools[0].Function.Parameters = nil
	check("schema dropped", req.Tools)
	if len(tc.entries) > toolCacheSize {
		t.Fatalf("cache holds %d tool sets, more than %d", len(tc.entries), toolCacheSize)
	}
}

func TestToolCacheRefusesInvalidSchema(t *testing.T) {
	tc := &toolCache{}
	tools := []ToolDefinition{{Function: FunctionDefinition{Name: "bad", Parameters: json.RawMessage(`{"type":`)}}}
	for range 2 {
		if _, err := tc.encoded(tools); err == nil {
			t.Fatal("a tool with invalid JSON parameters was encoded")
		}
	}
	if len(tc.entries) != 0 {
		t.Fatal("a failed encoding was cached")
	}
}

func TestCachedToolsExtraBodyStillYields(t *testing.T) {
	tc := &toolCache{}
	req := conversation50()
	req.ExtraBody = map[string]any{"tools": "theirs", "top_k": 5}
	for range 2 {
		body, err := tc.marshal(req, true)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(body, &m); err != nil {
			t.Fatalf("body is not JSON: %v\n%s", err, tail(body))
		}
		if string(m["top_k"]) != "5" || !bytes.HasPrefix(m["tools"], []byte("[")) {
			t.Fatalf("top_k=%s tools=%.40s", m["top_k"], m["tools"])
		}
	}
	req.Tools = nil
	body, err := tc.marshal(req, false)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("body is not JSON: %v", err)
	}
	if string(m["tools"]) != `"theirs"` {
		t.Fatalf("with no tools of its own the request should carry ExtraBody's: %s", m["tools"])
	}
}

// agentTurn is a new session's first request as the agent sends it: a
// system prompt, one user message and sixteen tools with 1 KB schemas.
func agentTurn() *Request {
	req := &Request{Model: "gpt-4o", MaxTokens: 4096, Messages: []Message{
		{Role: RoleSystem, Content: string(bytes.Repeat([]byte("You are joshbot, a personal assistant. "), 100))},
		{Role: RoleUser, Content: "hello"},
	}}
	schema := `{"type":"object","properties":{` + string(bytes.Repeat([]byte(`"p":{"type":"string","description":"a parameter of the tool, described at some length"},`), 12)) + `"q":{"type":"integer"}},"required":["q"]}`
	for i := range 16 {
		req.Tools = append(req.Tools, ToolDefinition{Type: "function", Function: FunctionDefinition{
			Name: "tool_" + string(rune('a'+i)), Description: "Does the thing the tool does, in a sentence or two.",
			Parameters: json.RawMessage(schema)}})
	}
	return req
}

func BenchmarkMarshalAgentTurn(b *testing.B) {
	req := agentTurn()
	tc := &toolCache{}
	body, err := tc.marshal(req, true)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tc.marshal(req, true); err != nil {
			b.Fatal(err)
		}
	}
}
