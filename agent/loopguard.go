package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/joshbot/joshbot/providers"
)

// DefaultRepeatLimit is how many times in a row the same tool may be called
// with the same arguments before the next identical call is refused.
const DefaultRepeatLimit = 3

// loopGuard notices a model stuck calling one tool with one set of
// arguments. Stuck loops are the most common way an agent burns its whole
// iteration budget and the user's money without progress: the result will
// not change, so a fourth identical call is refused and the model is told
// why, which is usually enough for it to change course.
type loopGuard struct {
	limit int
	last  string
	count int
}

// check records call and reports a refusal text when it repeats the
// previous call more than limit times in a row; "" means the call may run.
func (g *loopGuard) check(name, args string) string {
	if g.limit <= 0 {
		return ""
	}
	sig := name + "\x00" + canonicalArgs(args)
	if sig == g.last {
		g.count++
	} else {
		g.last, g.count = sig, 1
	}
	if g.count <= g.limit {
		return ""
	}
	return fmt.Sprintf("Error: refused: %s was already called %d times in a row with exactly these arguments, and the result will not change. "+
		"Use the result you already have, try different arguments or another tool, or answer the user with what you know.", name, g.limit)
}

// canonicalArgs renders JSON arguments with sorted keys and no spacing, so
// {"a":1, "b":2} and {"b":2,"a":1} count as the same call. Arguments that
// are not JSON are compared as trimmed text.
func canonicalArgs(args string) string {
	var v any
	if err := json.Unmarshal([]byte(args), &v); err != nil {
		return strings.TrimSpace(args)
	}
	b, err := json.Marshal(v) // maps marshal with sorted keys
	if err != nil {
		return strings.TrimSpace(args)
	}
	return string(b)
}

// textToolCall is the shape local models write when they put a tool call in
// the message text instead of the tool_calls field.
type textToolCall struct {
	Name       string          `json:"name"`
	Arguments  json.RawMessage `json:"arguments"`
	Parameters json.RawMessage `json:"parameters"`
}

// unwrapCall strips a ```json fence or <tool_call> tags around s. Plain
// string work rather than a regexp keeps package initialization free.
func unwrapCall(s string) string {
	if rest, ok := strings.CutPrefix(s, "```"); ok {
		if body, ok := strings.CutSuffix(rest, "```"); ok {
			nl := strings.IndexByte(body, '\n')
			if nl >= 0 && strings.TrimSpace(body[:nl]) != "" && !strings.ContainsAny(body[:nl], "{[") {
				body = body[nl+1:] // language tag
			}
			return strings.TrimSpace(body)
		}
	}
	if rest, ok := strings.CutPrefix(s, "<tool_call>"); ok {
		if body, ok := strings.CutSuffix(rest, "</tool_call>"); ok {
			return strings.TrimSpace(body)
		}
	}
	return s
}

// parseTextToolCalls recognizes a reply whose whole content is one tool
// call, or an array of them, written as JSON text (bare, in a ```json fence
// or in <tool_call> tags), naming tools that exist. Several local models
// served without a tool-call parser answer this way; without recognizing it
// the user would see raw JSON and nothing would run. Content with anything
// else around the JSON is prose and is left alone, as is a call to an
// unknown name, so an answer that merely shows JSON is not executed.
func parseTextToolCalls(content string, known func(string) bool) []providers.ToolCall {
	s := strings.TrimSpace(content)
	s = unwrapCall(s)
	if s == "" || (s[0] != '{' && s[0] != '[') {
		return nil
	}
	var list []textToolCall
	dec := json.NewDecoder(strings.NewReader(s))
	if s[0] == '[' {
		if err := dec.Decode(&list); err != nil {
			return nil
		}
	} else {
		var one textToolCall
		if err := dec.Decode(&one); err != nil {
			return nil
		}
		list = []textToolCall{one}
	}
	if dec.More() || len(list) == 0 {
		return nil
	}
	calls := make([]providers.ToolCall, 0, len(list))
	for _, c := range list {
		if c.Name == "" || !known(c.Name) {
			return nil
		}
		args := c.Arguments
		if len(args) == 0 {
			args = c.Parameters
		}
		args = bytes.TrimSpace(args)
		switch {
		case len(args) == 0 || string(args) == "null":
			args = json.RawMessage("{}")
		case args[0] == '"':
			// Some models encode the arguments object as a string, as the
			// wire format does.
			var inner string
			if json.Unmarshal(args, &inner) != nil {
				return nil
			}
			args = json.RawMessage(inner)
		}
		calls = append(calls, providers.ToolCall{Type: "function", Function: providers.FunctionCall{Name: c.Name, Arguments: string(args)}})
	}
	return calls
}

// stepLog remembers what a turn did, so a turn that hits its iteration
// limit can end with a summary rather than a bare error.
type stepLog struct {
	counts map[string]int
	order  []string
	// sequence is every call's tool name, in order.
	sequence []string
	refused  int
	lastSay  string
}

func (l *stepLog) add(name string, refused bool) {
	if l.counts == nil {
		l.counts = make(map[string]int)
	}
	if l.counts[name] == 0 {
		l.order = append(l.order, name)
	}
	l.counts[name]++
	l.sequence = append(l.sequence, name)
	if refused {
		l.refused++
	}
}

// summary describes the work in one or two sentences.
func (l *stepLog) summary() string {
	if len(l.order) == 0 {
		return "No tool calls ran."
	}
	parts := make([]string, 0, len(l.order))
	names := append([]string(nil), l.order...)
	sort.SliceStable(names, func(i, j int) bool { return l.counts[names[i]] > l.counts[names[j]] })
	for _, n := range names {
		if l.counts[n] == 1 {
			parts = append(parts, n)
		} else {
			parts = append(parts, fmt.Sprintf("%s ×%d", n, l.counts[n]))
		}
	}
	s := "Tools used: " + strings.Join(parts, ", ") + "."
	if l.refused > 0 {
		s += fmt.Sprintf(" %d repeated identical calls were refused.", l.refused)
	}
	if l.lastSay != "" {
		s += " Last note from the model: " + oneLine(l.lastSay)
	}
	return s
}

// textHold keeps back streamed text that may turn out to be a tool call
// written as JSON, so the user does not watch raw JSON scroll past before
// the call runs. Text that starts any other way streams at once.
type textHold struct {
	emit    func(string)
	buf     strings.Builder
	decided bool
	holding bool
}

func (h *textHold) feed(s string) {
	if h.decided && !h.holding {
		h.emit(s)
		return
	}
	h.buf.WriteString(s)
	if h.decided {
		return
	}
	lead := strings.TrimLeft(h.buf.String(), " \t\r\n")
	switch {
	case lead == "":
	case lead[0] == '{' || lead[0] == '[' || strings.HasPrefix(lead, "```") || strings.HasPrefix(lead, "<tool_call>"):
		h.decided, h.holding = true, true
	case strings.HasPrefix("```", lead) || strings.HasPrefix("<tool_call>", lead):
		// Too short to tell yet.
	default:
		h.decided = true
		h.emit(h.buf.String())
		h.buf.Reset()
	}
}

// finish releases what is held unless it was a tool call.
func (h *textHold) finish(wasCall bool) {
	if h.buf.Len() > 0 && !wasCall {
		h.emit(h.buf.String())
	}
	h.buf.Reset()
}
