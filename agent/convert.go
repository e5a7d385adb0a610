package agent

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/tools"
)

// window returns the newest part of msgs, at most limit long, starting at a
// user message so a tool call is never separated from its results.
func window(msgs []memory.Message, limit int) []memory.Message {
	if len(msgs) <= limit {
		return msgs
	}
	for i := len(msgs) - limit; i < len(msgs); i++ {
		if msgs[i].Role == providers.RoleUser {
			return msgs[i:]
		}
	}
	// No user message inside the window: send the latest one onward.
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == providers.RoleUser {
			return msgs[i:]
		}
	}
	return msgs[len(msgs)-limit:]
}

func toProviderMessage(m *memory.Message) providers.Message {
	// A stored attachment is never sent again: the model sees a note.
	pm := providers.Message{Role: m.Role, Content: refNotes(stoppedContent(m), m.Attachments), Name: m.Name, ToolCallID: m.ToolCallID}
	if len(m.ToolCalls) > 0 {
		pm.ToolCalls = make([]providers.ToolCall, len(m.ToolCalls))
		for i, c := range m.ToolCalls {
			pm.ToolCalls[i] = providers.ToolCall{ID: c.ID, Type: "function", Function: providers.FunctionCall{Name: c.Name, Arguments: c.Arguments}}
		}
	}
	return pm
}

func toMemoryMessage(m *providers.Message, now time.Time) memory.Message {
	mm := memory.Message{Role: m.Role, Content: m.Content, Name: m.Name, ToolCallID: m.ToolCallID, Time: now}
	if len(m.ToolCalls) > 0 {
		mm.ToolCalls = make([]memory.ToolCall, len(m.ToolCalls))
		for i, c := range m.ToolCalls {
			mm.ToolCalls[i] = memory.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments}
		}
	}
	return mm
}

func toProviderTools(defs []tools.Definition) []providers.ToolDefinition {
	out := make([]providers.ToolDefinition, len(defs))
	for i, d := range defs {
		out[i] = providers.ToolDefinition{
			Type:     "function",
			Function: providers.FunctionDefinition{Name: d.Function.Name, Description: d.Function.Description, Parameters: d.Function.Parameters},
		}
	}
	return out
}

// oneLine flattens s to a single line of bounded length for a user-facing
// message.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	const max = 300
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
