//go:build !linux

package skills

import (
	"io/fs"
	"time"
)

// keyOf reports every file as uncacheable outside Linux, where the change
// time it relies on is not read: the library re-reads every skill.
func keyOf(fs.FileInfo, time.Time, time.Duration) (fileKey, bool) {
	return fileKey{}, false
}
