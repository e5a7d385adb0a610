package agent

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/joshbot/joshbot/providers"
)

func TestRepairMessages(t *testing.T) {
	sys := providers.Message{Role: "system", Content: "s"}
	u := providers.Message{Role: "user", Content: "u"}
	a := providers.Message{Role: "assistant", Content: "a"}
	call := func(ids ...string) providers.Message {
		m := providers.Message{Role: "assistant"}
		for _, id := range ids {
			m.ToolCalls = append(m.ToolCalls, providers.ToolCall{ID: id, Type: "function", Function: providers.FunctionCall{Name: "f"}})
		}
		return m
	}
	res := func(id string) providers.Message {
		return providers.Message{Role: "tool", ToolCallID: id, Content: "r" + id}
	}
	// shape renders a list as role[:id] tokens for comparison.
	shape := func(msgs []providers.Message) string {
		var parts []string
		for _, m := range msgs {
			p := m.Role
			if m.ToolCallID != "" {
				p += ":" + m.ToolCallID
				if m.Content == unansweredResult {
					p += "!"
				}
			}
			for _, c := range m.ToolCalls {
				p += "+" + c.ID
			}
			parts = append(parts, p)
		}
		return strings.Join(parts, " ")
	}
	for _, tt := range []struct {
		name   string
		in     []providers.Message
		want   string
		repair bool
	}{
		{"well formed", []providers.Message{sys, u, call("1", "2"), res("2"), res("1"), a}, "system user assistant+1+2 tool:2 tool:1 assistant", false},
		{"orphan result at the start (cut window)", []providers.Message{sys, res("9"), u, a}, "system user assistant", true},
		{"unanswered call before a user message", []providers.Message{sys, u, call("1", "2"), res("1"), u, a}, "system user assistant+1+2 tool:1 tool:2! user assistant", true},
		{"unanswered call at the end", []providers.Message{sys, u, call("1")}, "system user assistant+1 tool:1!", true},
		{"duplicate result", []providers.Message{sys, u, call("1"), res("1"), res("1"), a}, "system user assistant+1 tool:1 assistant", true},
		{"result for an older group", []providers.Message{sys, u, call("1"), res("1"), call("2"), res("1"), res("2")}, "system user assistant+1 tool:1 assistant+2 tool:2", true},
		{"result after plain assistant", []providers.Message{sys, u, a, res("1")}, "system user assistant", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			log := slog.New(slog.NewTextHandler(&logs, nil))
			got := repairMessages(tt.in, log)
			if s := shape(got); s != tt.want {
				t.Errorf("repaired to\n %s\nwant\n %s", s, tt.want)
			}
			if logged := strings.Contains(logs.String(), "repaired"); logged != tt.repair {
				t.Errorf("logged %v, want %v: %s", logged, tt.repair, logs.String())
			}
			if !wellFormed(got) {
				t.Error("result is not well formed")
			}
			if tt.repair && &got[0] == &tt.in[0] {
				t.Error("repaired in place")
			}
		})
	}
}
