package agent

import (
	"log/slog"

	"github.com/joshbot/joshbot/providers"
)

// unansweredResult is the content given to a tool call that has no stored
// result, so the request stays valid and the model knows the call did not
// complete.
const unansweredResult = "Error: this tool call has no recorded result (the turn that made it was interrupted)."

// repairMessages returns msgs in a shape every chat-completions API accepts:
// each assistant tool call is answered by exactly one tool message before the
// next non-tool message, and no tool message appears without a call it
// answers. Unanswered calls get a placeholder result; orphaned or duplicate
// results are left out. Only the request is repaired: the stored session
// keeps every message as it was, so nothing is lost.
//
// msgs itself is returned when it needs no repair, which is the common case
// and costs one pass without allocating.
func repairMessages(msgs []providers.Message, log *slog.Logger) []providers.Message {
	if wellFormed(msgs) {
		return msgs
	}
	out := make([]providers.Message, 0, len(msgs)+4)
	var open []providers.ToolCall // calls of the current group, in order
	answered := map[string]bool{}
	added, dropped := 0, 0
	closeGroup := func() {
		for _, c := range open {
			if !answered[c.ID] {
				out = append(out, providers.Message{Role: providers.RoleTool, ToolCallID: c.ID, Name: c.Function.Name, Content: unansweredResult})
				added++
			}
		}
		open = nil
		clear(answered)
	}
	for _, m := range msgs {
		if m.Role == providers.RoleTool {
			if inGroup(open, m.ToolCallID) && !answered[m.ToolCallID] {
				answered[m.ToolCallID] = true
				out = append(out, m)
			} else {
				dropped++
			}
			continue
		}
		closeGroup()
		out = append(out, m)
		if m.Role == providers.RoleAssistant && len(m.ToolCalls) > 0 {
			open = m.ToolCalls
		}
	}
	closeGroup()
	if log != nil {
		log.Warn("repaired the message list before sending it: a tool call and its result were out of step",
			"placeholder_results", added, "dropped_results", dropped)
	}
	return out
}

// wellFormed reports whether msgs needs no repair.
func wellFormed(msgs []providers.Message) bool {
	var open []providers.ToolCall
	got := 0 // results seen for open, which must be distinct and in open
	for i := range msgs {
		m := &msgs[i]
		if m.Role == providers.RoleTool {
			if !inGroup(open, m.ToolCallID) {
				return false
			}
			// A duplicate answer shows up as more results than calls or
			// as a repeat among the ones seen so far.
			for j := i - got; j < i; j++ {
				if msgs[j].ToolCallID == m.ToolCallID {
					return false
				}
			}
			got++
			continue
		}
		if got != len(open) {
			return false
		}
		open, got = nil, 0
		if m.Role == providers.RoleAssistant {
			open = m.ToolCalls
		}
	}
	return got == len(open)
}

func inGroup(calls []providers.ToolCall, id string) bool {
	for i := range calls {
		if calls[i].ID == id {
			return true
		}
	}
	return false
}
