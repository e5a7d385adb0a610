package memory

import (
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/joshbot/joshbot/memory/atomicfile"
)

// staleTempAge is how old a temporary file must be before a sweep removes
// it: far longer than any write takes, so a live writer's file is never
// taken from under it.
const staleTempAge = time.Minute

// sweepTemp removes the temporary files that an atomic write into dir left
// behind when its process was killed between creating and renaming them:
// hidden files named "."+<file>+"."+<digits>+".tmp" (the pattern the store
// gives os.CreateTemp) last modified more than staleTempAge ago. Nothing
// else is touched. Failures are only logged: a leftover costs disk space,
// never correctness. It returns how many files were removed.
func sweepTemp(dir string) int {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	cutoff := time.Now().Add(-staleTempAge)
	removed := 0
	for _, e := range entries {
		if !e.Type().IsRegular() || !atomicfile.IsTemp(e.Name()) {
			continue
		}
		info, err := e.Info()
		if err != nil || info.ModTime().After(cutoff) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
			slog.Warn("memory: could not remove a stale temporary file", "file", filepath.Join(dir, e.Name()), "err", err)
			continue
		}
		removed++
	}
	if removed > 0 {
		slog.Info("memory: removed temporary files left by an interrupted write", "dir", dir, "files", removed)
	}
	return removed
}
