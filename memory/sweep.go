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
	// Names only, unsorted: a store opens at every start of the
	// program, and the sessions directory holds a file per session, of
	// which almost none is a temporary file.
	f, err := os.Open(dir)
	if err != nil {
		return 0
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return 0
	}
	cutoff := time.Now().Add(-staleTempAge)
	removed := 0
	for _, name := range names {
		if !atomicfile.IsTemp(name) {
			continue
		}
		p := filepath.Join(dir, name)
		info, err := os.Lstat(p)
		if err != nil || !info.Mode().IsRegular() || info.ModTime().After(cutoff) {
			continue
		}
		if err := os.Remove(p); err != nil {
			slog.Warn("memory: could not remove a stale temporary file", "file", p, "err", err)
			continue
		}
		removed++
	}
	if removed > 0 {
		slog.Info("memory: removed temporary files left by an interrupted write", "dir", dir, "files", removed)
	}
	return removed
}
