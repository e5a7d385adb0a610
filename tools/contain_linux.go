//go:build linux

package tools

import (
	"errors"

	"golang.org/x/sys/unix"
)

// statFlags opens a path only to stat it: O_PATH needs no read permission
// and never blocks on a FIFO.
const statFlags = unix.O_PATH

// noOpenat2 forces the component walk; tests set it to cover the path
// every kernel without openat2 takes.
var noOpenat2 bool

// openat2Beneath opens rel below rootFD with openat2, the kernel refusing
// any symbolic link, magic link or escape along the way. ok is false when
// the kernel (or a seccomp filter) does not offer openat2, so the caller
// falls back to the component walk.
func openat2Beneath(rootFD int, rel string, flags int, perm uint32) (fd int, err error, ok bool) {
	if noOpenat2 {
		return -1, nil, false
	}
	if rel == "" {
		rel = "."
	}
	how := &unix.OpenHow{
		Flags:   uint64(flags),
		Mode:    uint64(perm),
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	}
	fd, err = unix.Openat2(rootFD, rel, how)
	if errors.Is(err, unix.ENOSYS) {
		return -1, nil, false
	}
	return fd, err, true
}
