package agent

import (
	"strings"
	"testing"
)

func TestTextHold(t *testing.T) {
	for _, tt := range []struct {
		name     string
		chunks   []string
		wasCall  bool
		live     string // emitted before finish
		finished string // emitted in total
	}{
		{"prose streams at once", []string{"Hel", "lo"}, false, "Hello", "Hello"},
		{"leading space then prose", []string{"  ", "Hi"}, false, "  Hi", "  Hi"},
		{"object held then dropped", []string{`{"na`, `me":1}`}, true, "", ""},
		{"object held then released", []string{`{"a"`, `:1}`}, false, "", `{"a":1}`},
		{"short backtick prefix waits", []string{"`", "`", "`go\nx\n```"}, false, "", "```go\nx\n```"},
		{"backtick that is inline code", []string{"`", "x` is a name"}, false, "`x` is a name", "`x` is a name"},
		{"tag prefix waits", []string{"<tool", "_call>{}</tool_call>"}, true, "", ""},
		{"angle bracket prose", []string{"<", "b> is bold"}, false, "<b> is bold", "<b> is bold"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			h := &textHold{emit: func(s string) { out.WriteString(s) }}
			for _, c := range tt.chunks {
				h.feed(c)
			}
			if out.String() != tt.live {
				t.Errorf("live = %q, want %q", out.String(), tt.live)
			}
			h.finish(tt.wasCall)
			if out.String() != tt.finished {
				t.Errorf("finished = %q, want %q", out.String(), tt.finished)
			}
		})
	}
}

func TestCanonicalArgs(t *testing.T) {
	for _, tt := range []struct{ a, b string }{
		{`{"a":1,"b":[1,2]}`, `{ "b": [1, 2], "a": 1 }`},
		{`not json`, ` not json `},
	} {
		if canonicalArgs(tt.a) != canonicalArgs(tt.b) {
			t.Errorf("%q and %q differ", tt.a, tt.b)
		}
	}
	if canonicalArgs(`{"a":1}`) == canonicalArgs(`{"a":2}`) {
		t.Error("different arguments compare equal")
	}
}
