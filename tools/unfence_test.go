package tools

import (
	"strings"
	"testing"
)

// unfence returns out with the one untrusted fence it holds taken away
// (the opening line and the closing tag), so tests written for a tool's
// plain text keep checking that text; tests of the fence itself look at
// out whole. Output without a fence is returned as it is.
func unfence(out string) string {
	start := strings.Index(out, "<tool_output source=")
	if start < 0 {
		return out
	}
	nl := strings.IndexByte(out[start:], '\n')
	end := strings.LastIndex(out, "</tool_output>")
	if nl < 0 || end < 0 {
		return out
	}
	return out[:start] + out[start+nl+1:end] + out[end+len("</tool_output>"):]
}

func TestUnfence(t *testing.T) {
	if got := unfence("exit code: 0\n" + fenceOutput("x", "hi\n")); got != "exit code: 0\nhi\n" {
		t.Fatalf("%q", got)
	}
}
