//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// owner is the on-disk owner of a directory mounted with an idmap.
type owner struct{ uid, gid uint32 }

// idmapped returns a detached mount of dir, recursive, in which dir's
// owner on disk appears as [hostID], the id a confined command runs as
// when the caller is root: the command owns the directory, and what it
// creates there is owned on disk by the directory's real owner.
func (s *Sandbox) idmapped(dir string, readOnly bool) (*os.File, error) {
	// The path was resolved when the sandbox was made; a symbolic link on
	// it now was planted since (a read-write directory inside the
	// workspace swapped for a link to /etc, say) and is refused, or the
	// parent, as root, would mount wherever it points.
	fd, err := unix.Openat2(unix.AT_FDCWD, dir, &unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", dir, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, err
	}
	ns, err := usernsFor(owner{st.Uid, st.Gid})
	if err != nil {
		return nil, err
	}
	return idmappedMount(fd, dir, ns, readOnly)
}

// idmappedMount clones the mount tree at dirfd (dir names it in errors)
// and idmaps it through userns.
func idmappedMount(dirfd int, dir string, userns *os.File, readOnly bool) (*os.File, error) {
	fd, err := unix.OpenTree(dirfd, "", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE|unix.AT_EMPTY_PATH)
	if err != nil {
		return nil, fmt.Errorf("open_tree %s: %w", dir, err)
	}
	attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_IDMAP | unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV, Userns_fd: uint64(userns.Fd())}
	if readOnly {
		attr.Attr_set |= unix.MOUNT_ATTR_RDONLY
	}
	err = unix.MountSetattr(fd, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &attr)
	runtime.KeepAlive(userns)
	if err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("idmapping a mount of %s: %w", dir, err)
	}
	return os.NewFile(uintptr(fd), dir), nil
}

// usernses holds, for the life of the process, the user namespaces made
// for idmapped mounts, one per owner. Each maps that one owner to
// [hostID] and can never change, so every sandbox, and the probe, shares
// them: only the first sandbox of a process pays for starting the
// process a namespace is born in.
var usernses struct {
	mu sync.Mutex
	m  map[owner]*os.File
}

// usernsFor returns, making it on first use, a user namespace that maps
// o to [hostID].
func usernsFor(o owner) (*os.File, error) {
	usernses.mu.Lock()
	defer usernses.mu.Unlock()
	if f := usernses.m[o]; f != nil {
		return f, nil
	}
	f, err := newUserns(o)
	if err != nil {
		return nil, err
	}
	if usernses.m == nil {
		usernses.m = map[owner]*os.File{}
	}
	usernses.m[o] = f
	return f, nil
}

// keepUserns records f as the user namespace for o, unless one is kept
// already.
func keepUserns(o owner, f *os.File) {
	usernses.mu.Lock()
	defer usernses.mu.Unlock()
	if usernses.m[o] != nil {
		f.Close()
		return
	}
	if usernses.m == nil {
		usernses.m = map[owner]*os.File{}
	}
	usernses.m[o] = f
}

// newUserns makes a user namespace mapping o to [hostID] and returns a
// descriptor of it. A namespace needs a process to be born in: this one
// is this program, stopped by ptrace before its first instruction, and
// killed once the namespace is open.
func newUserns(o owner) (*os.File, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	p, err := os.StartProcess("/proc/self/exe", []string{"sandbox-userns"}, &os.ProcAttr{Sys: &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER,
		Ptrace:      true,
		Pdeathsig:   syscall.SIGKILL,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: int(o.uid), HostID: hostID, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: int(o.gid), HostID: hostID, Size: 1}},
	}})
	if err != nil {
		return nil, fmt.Errorf("making a user namespace for an idmapped mount: %w", err)
	}
	defer killReaping(p)
	f, err := os.Open(fmt.Sprintf("/proc/%d/ns/user", p.Pid))
	if err != nil {
		return nil, fmt.Errorf("opening the user namespace for an idmapped mount: %w", err)
	}
	return f, nil
}

// probeIDMap makes an idmapped mount of the temporary directory.
func probeIDMap() Layer {
	ns, err := usernsFor(owner{0, 0})
	if err != nil {
		return Layer{Detail: err.Error()}
	}
	fd, err := unix.Open(os.TempDir(), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return Layer{Detail: err.Error()}
	}
	defer unix.Close(fd)
	f, err := idmappedMount(fd, os.TempDir(), ns, true)
	if err != nil {
		return Layer{Detail: err.Error() + " (idmapped mounts need Linux 5.12 or later and a filesystem that supports them; a root process needs them to run commands as an unprivileged id)"}
	}
	f.Close()
	return Layer{Available: true, Detail: fmt.Sprintf("commands run as host uid %d", hostID)}
}

// killReaping kills p, a process started only to hold a namespace open,
// and reaps it in the background: the namespace, once open, outlives it,
// and its exit (some 0.1 to 0.2 ms) need not delay the command waiting
// for the namespace.
func killReaping(p *os.Process) {
	p.Kill()
	go p.Wait()
}
