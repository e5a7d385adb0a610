package memory

import (
	"os"
	"testing"
)

func TestCleanText(t *testing.T) {
	for _, tt := range []struct {
		in, want string
		changed  bool
	}{
		{"- fact\n\t- more\r\n", "- fact\n\t- more\r\n", false},
		{"Köln", "Köln", false},
		{"a\x00\x00b", "ab", true},
		{"K\xf6ln", "K\uFFFDln", true},
		{"bell\x07 and del\x7f", "bell and del", true},
	} {
		got, changed := CleanText([]byte(tt.in))
		if got != tt.want || changed != tt.changed {
			t.Errorf("CleanText(%q) = %q, %v; want %q, %v", tt.in, got, changed, tt.want, tt.changed)
		}
	}
}

func TestReadFactsCleansDamage(t *testing.T) {
	l, err := OpenLongTerm(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := l.FactsPath("")
	if err := os.WriteFile(p, []byte("- tea\x00\n- K\xf6ln\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := l.ReadFacts("")
	if err != nil || got != "- tea\n- K\uFFFDln\n" {
		t.Fatalf("ReadFacts = %q, %v", got, err)
	}
}
