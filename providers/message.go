package providers

import "encoding/json"

// Roles a [Message] can carry.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one entry of a conversation in the OpenAI chat format.
//
// Content is always serialized, even when empty, because several servers
// reject an assistant message whose content key is missing.
//
// Images and Documents are attachments of a user message. They are encoded
// by [Message.MarshalJSON], the single place where attachments meet the wire
// format: a message without attachments encodes exactly as it would if the
// two fields did not exist, and one with attachments turns Content into an
// array of content parts.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	Name       string     `json:"name,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	// Images are sent as image_url parts carrying data URLs; nil means none.
	Images []Image `json:"-"`
	// Documents are sent as file parts; nil means none.
	Documents []Document `json:"-"`
}

// ToolCall is a request by the model to run one tool.
type ToolCall struct {
	// ID pairs the call with the tool message that answers it.
	ID string `json:"id"`
	// Type is always "function" on the wire; an empty Type is sent as
	// "function".
	Type     string       `json:"type"`
	Function FunctionCall `json:"function"`
}

// FunctionCall names the tool and carries its arguments as the raw JSON text
// the model produced. The text may be malformed; callers must validate it.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// ToolDefinition describes a tool the model may call, in function-calling
// form.
type ToolDefinition struct {
	// Type is always "function".
	Type     string             `json:"type"`
	Function FunctionDefinition `json:"function"`
}

// FunctionDefinition is the name, description and JSON-schema parameters of
// a tool.
type FunctionDefinition struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// Usage is the token accounting a provider reports for one request.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}
