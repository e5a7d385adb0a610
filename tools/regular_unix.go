//go:build unix

package tools

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// openRegular opens real (a path from resolve) for reading, only if it is
// a regular file. It opens with O_NONBLOCK, so a FIFO with no writer
// cannot block the open past the turn, then checks what was opened with
// fstat, so a file swapped for a FIFO, a device or a socket after any
// earlier stat is refused too ([errNotRegular]). The handle it returns
// reads in blocking mode again.
func (c *contained) openRegular(real string) (*os.File, error) {
	rel, err := c.relReal(real)
	if err != nil {
		return nil, err
	}
	fd, err := c.openBeneath(rel, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
	if errors.Is(err, unix.ENXIO) {
		// What open(2) says of a socket.
		return nil, notRegular(unix.S_IFSOCK)
	}
	if err != nil {
		return nil, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return nil, notRegular(uint32(st.Mode) & unix.S_IFMT)
	}
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), real), nil
}

// notRegular names the kind of a file that is not regular.
func notRegular(kind uint32) error {
	what := "special file"
	switch kind {
	case unix.S_IFIFO:
		what = "FIFO (named pipe)"
	case unix.S_IFCHR:
		what = "character device"
	case unix.S_IFBLK:
		what = "block device"
	case unix.S_IFSOCK:
		what = "socket"
	case unix.S_IFDIR:
		what = "directory"
	}
	return &notRegularError{what: what}
}
