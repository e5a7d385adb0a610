package telegram

import (
	"errors"
	"testing"
)

// TestErrorCodeFromText: a code telebot has no sentinel for is read from
// the "(NNN)" that ends its message, and only from there.
func TestErrorCodeFromText(t *testing.T) {
	for _, c := range []struct {
		msg  string
		want int
	}{
		{"telegram: Bad Request: chat not found (400)", 400},
		{"telegram: Forbidden: bot was blocked by the user (403)", 403},
		{"telegram: odd ( 502)", 502},
		{"telegram: no code", 0},
		{"telegram: not a number (abc)", 0},
		{"telegram: empty ()", 0},
		{"telegram: unclosed (400", 0},
		{"telegram: (400) then text", 0},
	} {
		if got := errorCode(errors.New(c.msg)); got != c.want {
			t.Errorf("errorCode(%q) = %d, want %d", c.msg, got, c.want)
		}
	}
}
