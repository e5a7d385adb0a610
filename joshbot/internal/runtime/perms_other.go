//go:build !unix

package runtime

import "io/fs"

// holdsNoDirectories is false where link counts are not known: the
// directory is read.
func holdsNoDirectories(fs.FileInfo) bool { return false }
