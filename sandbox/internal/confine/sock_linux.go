//go:build linux

package confine

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// The helper's network forwarder accepts connections without package
// net, which it would otherwise link, and initialise, for this alone,
// and without x/sys's Accept4 and Getsockname, which convert the peer's
// address into a value of every socket address type there is (some
// 30 KB of binary for addresses nobody reads).

// accept accepts a connection on the listening socket fd, close-on-exec,
// without its peer's address.
func accept(fd int) (int, error) {
	r, _, errno := unix.Syscall6(unix.SYS_ACCEPT4, uintptr(fd), 0, 0, unix.SOCK_CLOEXEC, 0, 0)
	if errno != 0 {
		return -1, errno
	}
	return int(r), nil
}

// localPort returns the port an IPv4 socket is bound to.
func localPort(fd int) (int, error) {
	var sa unix.RawSockaddrInet4
	size := uint32(unix.SizeofSockaddrInet4)
	if _, _, errno := unix.Syscall(unix.SYS_GETSOCKNAME, uintptr(fd), uintptr(unsafe.Pointer(&sa)), uintptr(unsafe.Pointer(&size))); errno != 0 {
		return 0, errno
	}
	p := (*[2]byte)(unsafe.Pointer(&sa.Port))
	return int(p[0])<<8 | int(p[1]), nil
}
