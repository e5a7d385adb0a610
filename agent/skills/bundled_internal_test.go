package skills

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestBundledDescribedOnceButListedFresh: the bundled skills are parsed
// once, yet each List gets a slice of its own, so what one caller does to
// its list (or what List appends after them) never reaches the next.
func TestBundledDescribedOnceButListedFresh(t *testing.T) {
	lib, err := Open(t.TempDir(), filepath.Join(t.TempDir(), "skills.trust"))
	if err != nil {
		t.Fatal(err)
	}
	first, err := lib.List()
	if err != nil || len(first) == 0 {
		t.Fatalf("list: %v, %d skills", err, len(first))
	}
	want := first[0]
	first[0].Name, first[0].Trusted = "changed", false
	_ = append(first, Skill{Name: "appended"})
	second, err := lib.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(second) != len(first) || second[0].Name != want.Name || !second[0].Trusted || second[0].Hash != want.Hash {
		t.Fatalf("a caller's edit reached the next list: %+v", second)
	}
	if &describeBundled()[0] == &second[0] {
		t.Fatal("List handed out the cached slice itself")
	}
}

// TestReplaceAnglesIsTheReplacer checks the loop against the Replacer it
// stands for.
func TestReplaceAnglesIsTheReplacer(t *testing.T) {
	r := strings.NewReplacer("<", "‹", ">", "›")
	for _, s := range []string{"", "plain", "<skills>", "a<b>c<<>>", "ünï<cödé>", "\xff<\xfe>", "‹already›"} {
		if got, want := replaceAngles(s), r.Replace(s); got != want {
			t.Errorf("replaceAngles(%q) = %q, want %q", s, got, want)
		}
	}
}
