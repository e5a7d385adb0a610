package skills_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/joshbot/joshbot/agent/skills"
)

// BenchmarkSummaries is the skill index a turn's system prompt asks for,
// over a workspace with one trusted skill of its own.
func BenchmarkSummaries(b *testing.B) {
	ws, home := b.TempDir(), b.TempDir()
	dir := filepath.Join(ws, "skills", "notes")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: notes\ndescription: Keeps notes.\n---\nWrite notes to notes.md.\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	lib, err := skills.Open(ws, filepath.Join(home, "skills.trust"))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := lib.Trust("notes"); err != nil {
		b.Fatal(err)
	}
	if n := len(lib.Summaries()); n != 2 {
		b.Fatalf("%d summaries, want the bundled one and notes", n)
	}
	b.ReportAllocs()
	for b.Loop() {
		lib.Summaries()
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
