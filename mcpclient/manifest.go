package mcpclient

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// AdvertisedTool is one tool exactly as its server advertised it: the
// material an operator approves with `joshbot mcp trust`.
type AdvertisedTool struct {
	// Name is the tool's name on its server.
	Name string `json:"name"`
	// Description is the server's description, unmodified.
	Description string `json:"description"`
	// InputSchema is the argument schema as canonical JSON (object keys
	// sorted).
	InputSchema json.RawMessage `json:"input_schema"`
}

// Manifest is everything a server advertises that can reach the model: its
// tools, sorted by name. The zero Manifest is a server with no tools.
type Manifest struct {
	Tools []AdvertisedTool `json:"tools"`
}

// manifestOf converts a tools/list answer into a Manifest.
func manifestOf(tools []*mcp.Tool) (Manifest, error) {
	m := Manifest{Tools: make([]AdvertisedTool, 0, len(tools))}
	for _, t := range tools {
		schema, err := canonicalJSON(t.InputSchema)
		if err != nil {
			return Manifest{}, errorf("tool %q: input schema: %w", t.Name, err)
		}
		m.Tools = append(m.Tools, AdvertisedTool{Name: t.Name, Description: t.Description, InputSchema: schema})
	}
	sort.Slice(m.Tools, func(i, j int) bool { return m.Tools[i].Name < m.Tools[j].Name })
	return m, nil
}

// canonicalJSON re-encodes v with object keys sorted, so two encodings of the
// same schema hash the same.
func canonicalJSON(v any) (json.RawMessage, error) {
	if v == nil {
		return json.RawMessage("null"), nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var generic any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&generic); err != nil {
		return nil, err
	}
	return json.Marshal(generic) // maps marshal with sorted keys
}

// Hash returns the hex SHA-256 that trust is bound to. Every field is
// length-prefixed, so no two different manifests can produce the same byte
// stream by moving text between fields or tools.
func (m Manifest) Hash() string {
	h := sha256.New()
	var n [8]byte
	field := func(b []byte) {
		binary.BigEndian.PutUint64(n[:], uint64(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	field([]byte("joshbot-mcp-manifest-v1"))
	binary.BigEndian.PutUint64(n[:], uint64(len(m.Tools)))
	h.Write(n[:])
	for _, t := range m.Tools {
		field([]byte(t.Name))
		field([]byte(t.Description))
		field(t.InputSchema)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// diff describes how b differs from a, tool by tool, for a log line and an
// error message.
func diff(a, b Manifest) string {
	old := make(map[string]AdvertisedTool, len(a.Tools))
	for _, t := range a.Tools {
		old[t.Name] = t
	}
	var parts []string
	for _, t := range b.Tools {
		o, ok := old[t.Name]
		switch {
		case !ok:
			parts = append(parts, "added "+t.Name)
		case o.Description != t.Description:
			parts = append(parts, "changed description of "+t.Name)
		case !bytes.Equal(o.InputSchema, t.InputSchema):
			parts = append(parts, "changed input schema of "+t.Name)
		}
		delete(old, t.Name)
	}
	for _, t := range a.Tools {
		if _, ok := old[t.Name]; ok {
			parts = append(parts, "removed "+t.Name)
		}
	}
	if len(parts) == 0 {
		return "no tool changed"
	}
	return strings.Join(parts, ", ")
}
