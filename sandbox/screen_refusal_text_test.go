package sandbox

import (
	"strings"
	"testing"
)

// TestScreenRefusalNamesTheWord checks the refusal text the model reads
// for commands with newlines and empty words (issue 22 item 16): a newline
// between two commands names the program refused, and an empty program
// name is called empty rather than reported as the program ".".
func TestScreenRefusalNamesTheWord(t *testing.T) {
	s, err := NewScreener(&ScreenOptions{Mode: ScreenAllowlist, Allow: []string{"echo", "ls", "env"}, Workspace: "/ws"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ cmd, want string }{
		{"echo a\nrm b", `"rm" is not on the allowlist`},
		{"ls\nrm x\n", `"rm" is not on the allowlist`},
		{"echo a &&\n rm b", `"rm" is not on the allowlist`},
		{`""`, "the program name is empty"},
		{`'' ls`, "the program name is empty"},
		{`env ""`, "the program name is empty"},
		{"\n", "the command is empty"},
	} {
		err := s.Check(tt.cmd, "/ws")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Check(%q) = %v, want a refusal containing %q", tt.cmd, err, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), `"."`) {
			t.Errorf("Check(%q) = %v: names a program \".\" the command does not contain", tt.cmd, err)
		}
	}
}
