package memory

import (
	"strings"
	"testing"
)

func TestMarkInterrupted(t *testing.T) {
	u := Message{Role: "user", Content: "q"}
	a := Message{Role: "assistant", Content: "a"}
	rec := Message{Role: "system", Kind: KindCompaction}
	shape := func(msgs []Message) string {
		var b []string
		for _, m := range msgs {
			if m.Kind == KindInterrupted {
				b = append(b, "X")
			} else {
				b = append(b, m.Role[:1])
			}
		}
		return strings.Join(b, "")
	}
	for _, tt := range []struct {
		name string
		in   []Message
		want string
		n    int
	}{
		{"empty", nil, "", 0},
		{"whole turns", []Message{u, a, u, a}, "uaua", 0},
		{"one cut off", []Message{u, u, a}, "uXua", 1},
		{"cut off at the end stays open", []Message{u, a, u}, "uau", 0},
		{"several", []Message{u, u, u, a, u, u}, "uXuXuauXu", 3},
		{"after a summary", []Message{rec, u, u}, "suXu", 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, n := MarkInterrupted(tt.in)
			if got := shape(out); got != tt.want || n != tt.n {
				t.Fatalf("MarkInterrupted = %s (%d), want %s (%d)", got, n, tt.want, tt.n)
			}
		})
	}
}
