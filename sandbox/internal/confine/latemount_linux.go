//go:build linux

package confine

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// A root parent gives a confined command the policy's directories as
// idmapped mounts, in which the directory's owner on disk appears as the
// command's unprivileged host id. Making one needs a user namespace that
// maps that owner to the id, and a namespace needs a process to be born
// in. For a directory root owns, the helper's own namespace is that
// namespace: it maps 0 to the same id. So the parent starts the helper
// first, the helper sends its namespace over [Spec.MountSock], the parent
// makes the mounts with it while the helper builds the private root, and
// sends them back: no process is started for the namespace alone.

// MountsOK is the first byte of the parent's answer when it carries the
// mounts; any other first byte is followed by the reason it does not.
const MountsOK = 0

// sendUserns sends the helper's user namespace to the parent.
func sendUserns(sock int) error {
	ns, err := unix.Open("/proc/self/ns/user", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(ns)
	return unix.Sendmsg(sock, []byte{0}, unix.UnixRights(ns), nil, 0)
}

// receiveMounts waits for the parent's answer on spec.MountSock and gives
// each Mount marked Late its descriptor, in order. The parent's reason is
// returned as the error when it could not make them.
func receiveMounts(spec *Spec) error {
	want := 0
	for _, m := range spec.Mounts {
		if m.Late {
			want++
		}
	}
	buf := make([]byte, 4096)
	oob := make([]byte, unix.CmsgSpace(4*max(want, 1)))
	var n, oobn, flags int
	var err error
	for {
		n, oobn, flags, _, err = unix.Recvmsg(spec.MountSock, buf, oob, unix.MSG_CMSG_CLOEXEC)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("receiving the idmapped mounts: %w", err)
	}
	fds, err := Rights(oob[:oobn])
	if err != nil {
		return fmt.Errorf("receiving the idmapped mounts: %w", err)
	}
	closeAll := func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	}
	switch {
	case n == 0:
		closeAll()
		return errors.New("the parent closed the socket without sending the idmapped mounts")
	case buf[0] != MountsOK:
		closeAll()
		return errors.New(string(buf[1:n]))
	case flags&unix.MSG_CTRUNC != 0 || len(fds) != want:
		closeAll()
		return fmt.Errorf("received %d idmapped mounts, want %d", len(fds), want)
	}
	for i := range spec.Mounts {
		if spec.Mounts[i].Late {
			spec.Mounts[i].FD, fds = fds[0], fds[1:]
		}
	}
	return nil
}

// Rights returns the descriptors passed in a socket's control messages;
// on an error none is left open.
func Rights(oob []byte) ([]int, error) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil, err
	}
	var fds []int
	for _, m := range msgs {
		got, err := unix.ParseUnixRights(&m)
		if err != nil {
			for _, fd := range fds {
				unix.Close(fd)
			}
			return nil, err
		}
		fds = append(fds, got...)
	}
	return fds, nil
}
