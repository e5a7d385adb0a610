package providers

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// wireStrings are texts whose JSON encoding has every special case:
// quotes, backslashes, each control character, HTML characters (left
// alone), invalid UTF-8, U+2028 and U+2029, and wide characters.
func wireStrings() []string {
	var ctl strings.Builder
	for b := range 0x20 {
		ctl.WriteByte(byte(b))
	}
	return []string{
		"", "plain", `"quoted" \ back\slash /`, ctl.String(), "\x7f", "<b>&amp;</b> <script>", "bad \xff\xfe utf-8 \xe2\x82",
		"line\u2028para\u2029end", "héllo wörld ✓ 日本語 🙂", strings.Repeat("long ", 200),
	}
}

// The hand-written head and tools are byte for byte what encoding/json
// writes for the same values with HTML escaping off.
func TestHandWrittenWireIsEncodingJSONs(t *testing.T) {
	strs := wireStrings()
	var msgs []Message
	for i, s := range strs {
		m := Message{Role: RoleUser, Content: s}
		switch i % 3 {
		case 1:
			m = Message{Role: RoleAssistant, Content: s, Name: s, ToolCalls: []ToolCall{
				{ID: s, Type: "function", Function: FunctionCall{Name: "f" + s, Arguments: `{"a":` + string(mustJSON(t, s)) + `}`}},
				{ID: "2", Function: FunctionCall{Name: "g", Arguments: s}}, // untyped: sent as "function"
			}}
		case 2:
			m = Message{Role: RoleTool, Content: s, ToolCallID: s}
		}
		msgs = append(msgs, m)
	}
	for _, c := range [][]Message{nil, {}, msgs} {
		got := appendHead(nil, "model \u2028<x>", c)
		want := encodeNoEscape(t, &legacyHead{Model: "model \u2028<x>", Messages: legacyMessages(c)})
		want = want[:len(want)-1] // without the closing brace
		if !bytes.Equal(got, want) {
			t.Fatalf("head:\n got %s\nwant %s", got, want)
		}
	}
	var tools []ToolDefinition
	for _, s := range strs {
		tools = append(tools,
			ToolDefinition{Type: "function", Function: FunctionDefinition{Name: s, Description: s, Parameters: json.RawMessage(` { "type" : "object", "description": ` + string(mustJSON(t, s)) + ` } `)}},
			ToolDefinition{Function: FunctionDefinition{Name: "n" + s}})
	}
	for _, c := range [][]ToolDefinition{nil, {}, tools} {
		got, ok := appendTools(nil, c)
		if want := encodeNoEscape(t, withDefinitionTypes(c)); !ok || !bytes.Equal(got, want) {
			t.Fatalf("tools (ok %v):\n got %s\nwant %s", ok, got, want)
		}
	}
	// A schema that is not JSON is declined, and encodeTools reports
	// encoding/json's error for it.
	bad := []ToolDefinition{{Function: FunctionDefinition{Name: "x", Parameters: json.RawMessage(`{"a":`)}}}
	if _, ok := appendTools(nil, bad); ok {
		t.Fatal("a broken schema was written")
	}
	if _, err := encodeTools(bad); err == nil || !strings.Contains(err.Error(), "MarshalJSON") {
		t.Fatalf("encodeTools(broken schema) = %v, want encoding/json's error", err)
	}
}

type legacyHead struct {
	Model    string          `json:"model"`
	Messages []legacyMessage `json:"messages"`
}

// legacyMessages is msgs as the plain field-by-field encoding saw them,
// with the "function" type filled in.
func legacyMessages(msgs []Message) []legacyMessage {
	out := []legacyMessage{}
	for _, m := range withToolTypes(msgs) {
		out = append(out, legacyMessage{m.Role, m.Content, m.Name, m.ToolCalls, m.ToolCallID})
	}
	return out
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzAppendStringIsEncodingJSONs checks the hand-written string encoding,
// with its eight-byte skip, against encoding/json without HTML escaping.
func FuzzAppendStringIsEncodingJSONs(f *testing.F) {
	for _, s := range wireStrings() {
		f.Add(s)
	}
	f.Add("plain ascii text of some length, past eight bytes at a time.")
	f.Add("12345678\x1f2345678\"2345678\\2345678\x7f2345678é2345678 ")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := appendString(nil, s), encodeNoEscape(t, s); !bytes.Equal(got, want) {
			t.Fatalf("appendString(%q) = %s, want %s", s, got, want)
		}
	})
}
