//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"net"
	"os"

	"github.com/joshbot/joshbot/sandbox/internal/confine"
	"golang.org/x/sys/unix"
)

// helperOwner is the on-disk owner whose idmapped mounts the helper's
// own user namespace can carry: it maps uid and gid 0 to [hostID], as
// [childAttr] sets it up for a root parent.
var helperOwner = owner{0, 0}

// lateDir is a directory opened for an idmapped mount made through the
// helper's user namespace once the helper has started.
type lateDir struct {
	fd   int
	path string
	ro   bool
}

// serveLateMounts returns the helper's end of a socket pair (for
// [confine.Spec.MountSock]) and starts answering on the other: it waits
// for the helper's user namespace, makes an idmapped mount of each of
// dirs with it, and sends them, or the reason it could not. stop ends it
// and closes the directories; it must be called whether or not the
// helper was started.
func serveLateMounts(dirs []lateDir) (child *os.File, stop func(), err error) {
	closeDirs := func() {
		for _, d := range dirs {
			unix.Close(d.fd)
		}
	}
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		closeDirs()
		return nil, nil, err
	}
	child = os.NewFile(uintptr(pair[1]), "idmapped mounts (helper's end)")
	mine := os.NewFile(uintptr(pair[0]), "idmapped mounts")
	c, err := net.FileConn(mine)
	mine.Close()
	if err != nil {
		child.Close()
		closeDirs()
		return nil, nil, err
	}
	conn := c.(*net.UnixConn)
	done := make(chan struct{})
	go func() {
		defer close(done)
		answerLateMounts(conn, dirs)
	}()
	stop = func() {
		conn.Close()
		<-done
		closeDirs()
	}
	return child, stop, nil
}

// answerLateMounts is serveLateMounts' side of one exchange.
func answerLateMounts(conn *net.UnixConn, dirs []lateDir) {
	buf, oob := make([]byte, 16), make([]byte, unix.CmsgSpace(4))
	_, oobn, _, _, err := conn.ReadMsgUnix(buf, oob)
	if err != nil {
		return // the helper never started, or died first
	}
	ns, err := receivedUserns(oob[:oobn])
	if err != nil {
		refuseLateMounts(conn, err)
		return
	}
	defer ns.Close()
	var mounts []*os.File
	defer func() {
		for _, f := range mounts {
			f.Close()
		}
	}()
	rights := make([]int, 0, len(dirs))
	for _, d := range dirs {
		f, err := idmappedMount(d.fd, d.path, ns, d.ro)
		if err != nil {
			refuseLateMounts(conn, err)
			return
		}
		mounts = append(mounts, f)
		rights = append(rights, int(f.Fd()))
	}
	conn.WriteMsgUnix([]byte{confine.MountsOK}, unix.UnixRights(rights...), nil)
}

// receivedUserns returns the one descriptor in oob, checked to be a user
// namespace.
func receivedUserns(oob []byte) (*os.File, error) {
	fds, err := confine.Rights(oob)
	if err != nil {
		return nil, err
	}
	if len(fds) != 1 {
		for _, fd := range fds {
			unix.Close(fd)
		}
		return nil, fmt.Errorf("the helper sent %d descriptors, not its user namespace", len(fds))
	}
	unix.CloseOnExec(fds[0])
	typ, err := unix.IoctlRetInt(fds[0], unix.NS_GET_NSTYPE)
	if err != nil || typ != unix.CLONE_NEWUSER {
		unix.Close(fds[0])
		return nil, errors.New("the helper sent a descriptor that is not a user namespace")
	}
	return os.NewFile(uintptr(fds[0]), "helper's user namespace"), nil
}

// refuseLateMounts tells the helper why it gets no mounts; it prints the
// reason and runs nothing.
func refuseLateMounts(conn *net.UnixConn, err error) {
	conn.Write(append([]byte{1}, idmapFailure(err).Error()...))
}

// idmapFailure is the error for a directory that cannot be given to a
// command as an idmapped mount.
func idmapFailure(err error) error {
	return fmt.Errorf("%w: idmapped mounts: %v; a root process runs commands as an unprivileged id, which needs an idmapped mount of each directory the policy grants (Linux 5.12 or later, and a filesystem that supports them)", ErrUnsupported, err)
}
