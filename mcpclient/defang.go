package mcpclient

import (
	"fmt"
	"unicode/utf8"

	"github.com/joshbot/joshbot/sandbox/fence"
)

// Limits on server-supplied text. Everything a server says lands in the
// model's prompt, so each of these bounds what one server can spend of the
// context window or the heap.
const (
	// MaxDescription is the longest tool description, in characters, that
	// reaches the model.
	MaxDescription = 1024
	// MaxResult is the longest tool result, in characters, that reaches the
	// model; the rest is replaced by a marker saying how much was cut.
	MaxResult = 4000
	// MaxMessage is the largest single message, in bytes, a server may send.
	// A larger one kills the connection.
	MaxMessage = 4 << 20
	// maxSchema bounds one tool's input schema; a tool with a larger one is
	// not offered to the model.
	maxSchema = 16 << 10
)

// Defang neutralises joshbot's prompt tags (<memory>, </skills>,
// <current_time>, <conversation_context>, <personality>, <tool_output> and
// the others [fence.Tags] lists, in any letter case, with or without
// spaces or attributes) in server-supplied text by replacing each tag's
// "<" with "&lt;". Everything else is left as it is. It is
// [fence.Defang], the one implementation every source of untrusted text
// shares. Defang is safe for concurrent use.
func Defang(s string) string { return fence.Defang(s) }

// capChars cuts s to at most max characters (runes), appending marker when
// anything was cut. It reports how many characters were dropped.
func capChars(s string, max int) (string, int) {
	if len(s) <= max { // bytes bound runes from above
		return s, 0
	}
	n := utf8.RuneCountInString(s)
	if n <= max {
		return s, 0
	}
	i, count := 0, 0
	for i = range s {
		if count == max {
			break
		}
		count++
	}
	return s[:i], n - max
}

// modelDescription is a server's tool description as the model sees it:
// defanged, then capped at [MaxDescription] characters.
func modelDescription(server, desc string) string {
	d, cut := capChars(Defang(desc), MaxDescription)
	if cut > 0 {
		d += fmt.Sprintf(" [description truncated: %d more characters]", cut)
	}
	if d == "" {
		return fmt.Sprintf("[from MCP server %q]", server)
	}
	return fmt.Sprintf("[from MCP server %q] %s", server, d)
}

// fenceResult wraps a server's result text as untrusted tool output
// ([fence.Wrap]): defanged so it cannot close the fence or open a section
// of joshbot's prompt, capped at [MaxResult] characters with a visible
// marker.
func fenceResult(server, tool, text string, isError bool) string {
	kind := "result"
	if isError {
		kind = "error"
	}
	return fence.Wrap("mcp:"+server+"/"+tool, text, &fence.Options{Kind: kind, Max: MaxResult, Origin: "an outside server"})
}
