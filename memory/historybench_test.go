package memory

import (
	"path/filepath"
	"testing"
)

// BenchmarkAppendHistoryConcurrent is the history entries of 16 turns
// finishing at once, as a busy API server's are.
func BenchmarkAppendHistoryConcurrent(b *testing.B) {
	l, err := OpenLongTerm(filepath.Join(b.TempDir(), "workspace"), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.SetParallelism(8) // 16 goroutines on 2 processors
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := l.AppendHistory("api:bench", "User: a question\nAssistant: an answer"); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
