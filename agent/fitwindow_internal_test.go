package agent

import (
	"strings"
	"testing"

	"github.com/joshbot/joshbot/providers"
)

func tokensOf(msgs []providers.Message) int {
	n := 0
	for i := range msgs {
		n += messageTokens(&msgs[i])
	}
	return n
}

func TestFitWindow(t *testing.T) {
	big := strings.Repeat("x", 40_000) // about 10k tokens
	sys := providers.Message{Role: "system", Content: "you are helpful"}
	call := providers.Message{Role: "assistant", ToolCalls: []providers.ToolCall{{ID: "c1", Function: providers.FunctionCall{Name: "read_file", Arguments: "{}"}}}}
	for _, tt := range []struct {
		name    string
		msgs    []providers.Message
		budget  int
		dropped int
		clipped bool
		first   string // role of the first message after the system prompt
	}{
		{"fits", []providers.Message{sys, {Role: "user", Content: "hi"}}, 1000, 0, false, "user"},
		{"drops at a user message", []providers.Message{sys, {Role: "user", Content: big}, call, {Role: "tool", ToolCallID: "c1", Content: big}, {Role: "assistant", Content: "ok"}, {Role: "user", Content: "now"}}, 1000, 4, false, "user"},
		{"clips the turn's own message", []providers.Message{sys, {Role: "user", Content: big}, {Role: "assistant", Content: big}, {Role: "user", Content: big}}, 2000, 2, true, "user"},
		{"clips the system prompt last", []providers.Message{{Role: "system", Content: big}, {Role: "user", Content: big}}, 1000, 0, true, "user"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, dropped, clipped := fitWindow(tt.msgs, tt.budget, 0)
			if got := tokensOf(out); got > tt.budget {
				t.Errorf("%d tokens over a budget of %d", got, tt.budget)
			}
			if dropped != tt.dropped || (clipped > 0) != tt.clipped {
				t.Errorf("dropped %d, clipped %d; want %d, clipped %v", dropped, clipped, tt.dropped, tt.clipped)
			}
			if out[0].Role != "system" || out[1].Role != tt.first {
				t.Errorf("request opens %s, %s", out[0].Role, out[1].Role)
			}
			if last := out[len(out)-1]; last.Role != "user" {
				t.Errorf("the turn's message is not last: %s", last.Role)
			}
			if tt.clipped && !strings.Contains(out[len(out)-1].Content, "left out here to fit") {
				t.Errorf("a clipped message carries no note")
			}
			if !tt.clipped && tt.dropped == 0 && &out[0] != &tt.msgs[0] {
				t.Errorf("a request that fits was copied")
			}
		})
	}
}
