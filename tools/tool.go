package tools

import (
	"context"
	"encoding/json"
)

// Tool is one action the model can request.
//
// Implementations must be safe for concurrent use: the same Tool value
// serves every conversation at once. Anything that belongs to one turn (the
// approver, the progress sink, the recipient) travels on ctx, never on the
// struct.
type Tool interface {
	// Name is the identifier the model calls the tool by. It must match
	// ^[a-zA-Z0-9_-]{1,64}$, the rule the function-calling APIs enforce.
	Name() string
	// Description tells the model what the tool does and when to use it.
	Description() string
	// Parameters is the JSON schema (an object schema) of the arguments.
	Parameters() json.RawMessage
	// Execute runs the tool with the model's arguments, which the Registry
	// has already checked are a JSON object. The returned text is shown to
	// the model; an error is shown to the model as a tool error.
	Execute(ctx context.Context, args json.RawMessage) (string, error)
}

// Definition is a tool's schema in function-calling form: exactly the JSON
// an OpenAI-compatible API expects in its "tools" array.
type Definition struct {
	// Type is always "function".
	Type     string   `json:"type"`
	Function Function `json:"function"`
}

// Function is the name, description and parameter schema of a tool.
type Function struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}
