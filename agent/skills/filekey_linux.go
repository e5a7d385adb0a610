package skills

import (
	"io/fs"
	"syscall"
	"time"
)

// keyOf returns the identity of the version of a file fi describes, and
// whether it may be cached at now. Any write to the file, a rename over
// it (another inode), or a change of its times, mode or owner gives a
// different key: each moves the change time, which no program can set.
//
// A file whose change time is within racyWindow of now is not cacheable:
// the kernel stamps change times from a clock that ticks every few
// milliseconds, so a second write in the same tick as a read would keep
// the key the read saw. Once the window has passed, any later change is
// stamped later than the key's.
func keyOf(fi fs.FileInfo, now time.Time, racyWindow time.Duration) (fileKey, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileKey{}, false
	}
	ctime := time.Unix(int64(st.Ctim.Sec), int64(st.Ctim.Nsec))
	if now.Sub(ctime) < racyWindow {
		return fileKey{}, false
	}
	return fileKey{dev: uint64(st.Dev), ino: uint64(st.Ino), size: int64(st.Size), ctime: st.Ctim.Nano()}, true
}
