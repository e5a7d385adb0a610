package providers

import (
	"bytes"
	"encoding/json"
	"sync"
)

// toolCacheSize is how many distinct tool sets a client keeps encoded: a
// turn's tools, a subagent's narrower set and a profile's own fit.
const toolCacheSize = 4

// toolCache holds the encoded "tools" array of the tool sets a client
// sent recently. A tool set is the same agent after agent, turn after
// turn, and encoding it is most of a request's cost: every schema is a
// json.RawMessage that encoding/json re-validates and compacts on each
// call. An entry is found by comparing the definitions themselves with a
// private copy taken when it was encoded, never by the slice's identity,
// so a caller that edits its definitions in place gets them re-encoded.
// Comparing is a memory compare, far cheaper than the encoding.
type toolCache struct {
	mu      sync.Mutex
	entries []toolEntry // newest last
}

type toolEntry struct {
	defs    []ToolDefinition // a copy: Parameters bytes are the cache's own
	encoded []byte           // the JSON array, as encodeTools writes it
}

// encoded returns the JSON array of tools, from the cache when an equal
// set was encoded before. A nil cache encodes every time. The returned
// bytes must not be modified.
func (tc *toolCache) encoded(tools []ToolDefinition) ([]byte, error) {
	if tc == nil {
		return encodeTools(tools)
	}
	tc.mu.Lock()
	for i := len(tc.entries) - 1; i >= 0; i-- {
		if sameTools(tc.entries[i].defs, tools) {
			b := tc.entries[i].encoded
			tc.mu.Unlock()
			return b, nil
		}
	}
	tc.mu.Unlock()
	b, err := encodeTools(tools)
	if err != nil {
		return nil, err
	}
	e := toolEntry{defs: make([]ToolDefinition, len(tools)), encoded: b}
	copy(e.defs, tools)
	for i := range e.defs {
		e.defs[i].Function.Parameters = bytes.Clone(tools[i].Function.Parameters)
	}
	tc.mu.Lock()
	if len(tc.entries) == toolCacheSize {
		tc.entries = append(tc.entries[:0], tc.entries[1:]...)
	}
	tc.entries = append(tc.entries, e)
	tc.mu.Unlock()
	return b, nil
}

// sameTools reports whether a and b encode alike.
func sameTools(a, b []ToolDefinition) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.Type != y.Type || x.Function.Name != y.Function.Name || x.Function.Description != y.Function.Description ||
			!bytes.Equal(x.Function.Parameters, y.Function.Parameters) ||
			// nil and empty Parameters both leave the key out, but keep
			// them apart anyway: equal bytes is the whole rule.
			(x.Function.Parameters == nil) != (y.Function.Parameters == nil) {
			return false
		}
	}
	return true
}

// encodeTools encodes tools exactly as the "tools" member of a request
// body: the "function" type filled in, HTML left unescaped.
func encodeTools(tools []ToolDefinition) ([]byte, error) {
	n := 2
	for i := range tools {
		n += 64 + len(tools[i].Function.Name) + len(tools[i].Function.Description) + len(tools[i].Function.Parameters)
	}
	if b, ok := appendTools(make([]byte, 0, n), tools); ok {
		return b, nil
	}
	// A schema that is not valid JSON: encoding/json's error names it.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(withDefinitionTypes(tools)); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
