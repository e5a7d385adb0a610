package skills_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/joshbot/joshbot/agent/skills"
)

// BenchmarkSummaries is the skill index a turn's system prompt asks for,
// over a workspace with trusted skills of its own, in the steady state:
// the files were written more than the cache's racy window before (a
// second), as a workspace's skills are between edits.
func BenchmarkSummaries(b *testing.B) {
	for _, n := range []int{1, 10} {
		b.Run(fmt.Sprintf("skills=%d", n), func(b *testing.B) {
			ws, home := b.TempDir(), b.TempDir()
			lib, err := skills.Open(ws, filepath.Join(home, "skills.trust"))
			if err != nil {
				b.Fatal(err)
			}
			for i := range n {
				name := fmt.Sprintf("notes-%d", i)
				dir := filepath.Join(ws, "skills", name)
				if err := os.MkdirAll(dir, 0o700); err != nil {
					b.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: "+name+"\ndescription: Keeps notes.\n---\nWrite notes to notes.md.\n"), 0o600); err != nil {
					b.Fatal(err)
				}
				if _, err := lib.Trust(name); err != nil {
					b.Fatal(err)
				}
			}
			time.Sleep(1100 * time.Millisecond)
			if got := len(lib.Summaries()); got != n+1 {
				b.Fatalf("%d summaries, want the bundled one and %d", got, n)
			}
			b.ReportAllocs()
			for b.Loop() {
				lib.Summaries()
			}
		})
	}
}

// BenchmarkSummariesBundledOnly is the index of a workspace without
// skills of its own, the common case.
func BenchmarkSummariesBundledOnly(b *testing.B) {
	lib, err := skills.Open(b.TempDir(), filepath.Join(b.TempDir(), "skills.trust"))
	if err != nil {
		b.Fatal(err)
	}
	if n := len(lib.Summaries()); n != 1 {
		b.Fatalf("%d summaries, want the bundled one", n)
	}
	b.ReportAllocs()
	for b.Loop() {
		lib.Summaries()
	}
}
