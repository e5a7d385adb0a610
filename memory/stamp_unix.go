//go:build unix

package memory

import (
	"os"
	"syscall"
)

// stampOf identifies the version of a file that info describes: its inode,
// size and modification time. A rename over the file gives it another
// inode, and every write changes the size or the time.
func stampOf(info os.FileInfo) fileStamp {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fileStamp{}
	}
	return fileStamp{ino: uint64(st.Ino), dev: uint64(st.Dev), size: info.Size(), mtime: info.ModTime().UnixNano(), ok: true}
}
