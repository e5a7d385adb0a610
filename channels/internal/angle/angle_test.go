package angle

import (
	"strings"
	"testing"
)

func TestEscapeIsTheReplacer(t *testing.T) {
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
	for _, s := range []string{"", "plain", "a < b && c > d", "<<>>&&", "&amp; already", "ünï <b>code</b> 😀"} {
		if got, want := Escape(s), r.Replace(s); got != want {
			t.Errorf("Escape(%q) = %q, want %q", s, got, want)
		}
	}
}
