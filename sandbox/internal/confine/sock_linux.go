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

// Recvmsg receives into p, and the descriptors sent with it into oob
// (close-on-exec), returning the bytes and control bytes received; like
// accept, it skips x/sys's conversion of the sender's address.
func Recvmsg(fd int, p, oob []byte) (n, oobn int, err error) {
	iov := unix.Iovec{Base: &p[0]}
	iov.SetLen(len(p))
	msg := unix.Msghdr{Iov: &iov, Control: &oob[0]}
	msg.SetIovlen(1)
	msg.SetControllen(len(oob))
	for {
		r, _, errno := unix.Syscall(unix.SYS_RECVMSG, uintptr(fd), uintptr(unsafe.Pointer(&msg)), unix.MSG_CMSG_CLOEXEC)
		if errno == unix.EINTR {
			continue
		}
		if errno != 0 {
			return 0, 0, errno
		}
		return int(r), int(msg.Controllen), nil
	}
}

// Sendmsg sends p, with oob as its control message when not empty,
// without SIGPIPE, skipping x/sys's Sendmsg, whose conversion of the
// peer's address links every socket address type there is.
func Sendmsg(fd int, p, oob []byte) (int, error) {
	iov := unix.Iovec{Base: &p[0]}
	iov.SetLen(len(p))
	msg := unix.Msghdr{Iov: &iov}
	msg.SetIovlen(1)
	if len(oob) > 0 {
		msg.Control = &oob[0]
		msg.SetControllen(len(oob))
	}
	for {
		r, _, errno := unix.Syscall(unix.SYS_SENDMSG, uintptr(fd), uintptr(unsafe.Pointer(&msg)), unix.MSG_NOSIGNAL)
		if errno == unix.EINTR {
			continue
		}
		if errno != 0 {
			return 0, errno
		}
		return int(r), nil
	}
}

// ReceivedFDs returns the descriptors the control messages oob, as
// [Recvmsg] received them, carry.
func ReceivedFDs(oob []byte) ([]int, error) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil, err
	}
	var fds []int
	for _, m := range msgs {
		got, err := unix.ParseUnixRights(&m)
		if err != nil {
			return fds, err
		}
		fds = append(fds, got...)
	}
	return fds, nil
}
