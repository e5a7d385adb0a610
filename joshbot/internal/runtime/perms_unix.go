//go:build unix

package runtime

import (
	"io/fs"
	"syscall"
)

// holdsNoDirectories reports whether fi, a directory, is known to hold no
// directories: its link count is 2 (its entry and its own "."), which
// filesystems that count subdirectories' ".." links report only then.
// Filesystems that do not count them (btrfs, some network ones) report 1,
// which says nothing, so false.
func holdsNoDirectories(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Nlink == 2
}
