package memory

import (
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/joshbot/joshbot/memory/atomicfile"
	"github.com/joshbot/joshbot/memory/internal/sysfile"
)

// staleTempAge is how old a temporary file must be before a sweep removes
// it: far longer than any write takes, so a live writer's file is never
// taken from under it.
const staleTempAge = time.Minute

// sweepMarker is the file, in a directory the memory package owns, whose
// modification time records when a sweep last listed a directory: see
// [sweepTemp].
const sweepMarker = ".swept"

// readDirNames lists dir's names; a variable so tests can count listings.
var readDirNames = func(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

// sweepTemp removes the temporary files that an atomic write into dir left
// behind when its process was killed between creating and renaming them:
// hidden files named "."+<file>+"."+<digits>+".tmp" (the pattern the store
// gives os.CreateTemp) last modified more than staleTempAge ago. Nothing
// else is touched. Failures are only logged: a leftover costs disk space,
// never correctness. It returns how many files were removed.
//
// A store opens at every start of the program, and the sessions
// directory holds a file per session (the workspace, whatever the user
// keeps there), so dir is listed only when it changed since the last
// sweep: a killed writer's temporary file changed it when it was made.
// marker, a file in a directory this package owns, records the sweep;
// its modification time is set after the listing, so a directory whose
// own is not later is unchanged since. A temporary file too young to
// remove at one sweep is removed at the first sweep after the directory
// next changes. An empty marker lists dir every time.
func sweepTemp(dir, marker string) int {
	if marker != "" && unchangedSince(dir, marker) {
		return 0
	}
	removed := sweepListed(dir)
	if marker != "" {
		markSwept(marker)
	}
	return removed
}

// unchangedSince reports whether dir was last modified no later than
// marker.
func unchangedSince(dir, marker string) bool {
	m, err := os.Lstat(marker)
	if err != nil || !m.Mode().IsRegular() {
		return false
	}
	d, err := os.Stat(dir)
	return err == nil && !d.ModTime().After(m.ModTime())
}

// markSwept creates marker if needed and sets its modification time to
// now, after any change creating it made to its directory.
func markSwept(marker string) {
	f, err := sysfile.Open(marker, os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	f.Close()
	now := time.Now()
	_ = os.Chtimes(marker, now, now)
}

// sweepListed lists dir and removes its stale temporary files.
func sweepListed(dir string) int {
	// Names only, unsorted: almost no name in the directory is a
	// temporary file.
	names, err := readDirNames(dir)
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
