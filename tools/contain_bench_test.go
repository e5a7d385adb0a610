package tools

import (
	"os"
	"path/filepath"
	"testing"
)

func BenchmarkContainedOpen(b *testing.B) {
	ws, _ := filepath.EvalSymlinks(b.TempDir())
	os.MkdirAll(filepath.Join(ws, "a/b/c"), 0o755)
	os.WriteFile(filepath.Join(ws, "a/b/c/f.txt"), []byte("x"), 0o644)
	c, err := newContained(ws)
	if err != nil {
		b.Fatal(err)
	}
	for _, walk := range []bool{false, true} {
		name := "openat2"
		if walk {
			name = "walk"
		}
		b.Run(name, func(b *testing.B) {
			old := noOpenat2Bench(walk)
			defer noOpenat2Bench(old)
			b.ReportAllocs()
			for b.Loop() {
				f, _, err := c.open("a/b/c/f.txt")
				if err != nil {
					b.Fatal(err)
				}
				f.Close()
			}
		})
	}
}
