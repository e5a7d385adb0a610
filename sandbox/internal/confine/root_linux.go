//go:build linux

package confine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// buildSystemRoot and then finishRoot run in the helper, uid 0 of a new
// user namespace, and make a private root the way bubblewrap does: a
// tmpfs over /tmp becomes the root with the host's tree under /oldroot, a
// second tmpfs at /newroot is filled with read-only system directories, a
// private /tmp, /dev and /proc and the policy's directories, and a second
// pivot_root makes it the root and detaches everything else. Nothing of
// the host is mounted writable except the policy's read-write
// directories.
//
// buildSystemRoot is the part no spec changes, up to /proc; a helper
// started ahead of its command does it while it waits for the command.
// The system directories are bound then, so one created on the host
// later (a new /opt) is not in that helper's root; their contents are the
// host's, live.
func buildSystemRoot() error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making mounts private: %w", err)
	}
	if err := mountTmpfs("/tmp", "mode=0700"); err != nil {
		return err
	}
	if err := unix.Chdir("/tmp"); err != nil {
		return err
	}
	for _, d := range []string{"newroot", "oldroot"} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return err
		}
	}
	if err := unix.PivotRoot(".", "oldroot"); err != nil {
		return fmt.Errorf("pivot_root: %w", err)
	}
	if err := unix.Chdir("/"); err != nil {
		return err
	}
	if err := mountTmpfs("/newroot", "mode=0755"); err != nil {
		return err
	}
	for _, d := range SystemDirs {
		if err := bindSystem(d); err != nil {
			return err
		}
	}
	if err := mountTmpfs("/newroot/tmp", "mode=1777"); err != nil {
		return err
	}
	if err := buildDev(); err != nil {
		return fmt.Errorf("/dev: %w", err)
	}
	if err := os.Mkdir("/newroot/proc", 0o555); err != nil {
		return err
	}
	// A fresh procfs shows only this PID namespace: the parent and its
	// environment are not in it.
	if err := unix.Mount("proc", "/newroot/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mounting /proc: %w", err)
	}
	return nil
}

// finishRoot places the spec's directories in the root buildSystemRoot
// began, makes it read-only and pivots into it, detaching the host's
// tree.
func finishRoot(spec *Spec) error {
	for _, m := range spec.Mounts {
		if err := placeMount(m); err != nil {
			return fmt.Errorf("%s: %w", m.Path, err)
		}
	}
	// The root itself is read-only: nothing is created beside the mounts.
	if err := setMountAttr("/newroot", unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV, false); err != nil {
		return err
	}
	if err := unix.Chdir("/newroot"); err != nil {
		return err
	}
	if err := unix.PivotRoot(".", "."); err != nil {
		return fmt.Errorf("pivot_root: %w", err)
	}
	if err := unix.Unmount(".", unix.MNT_DETACH); err != nil {
		return fmt.Errorf("detaching the old root: %w", err)
	}
	return unix.Chdir("/")
}

func mountTmpfs(dir, opts string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := unix.Mount("tmpfs", dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, opts); err != nil {
		return fmt.Errorf("mounting a tmpfs on %s: %w", dir, err)
	}
	return nil
}

// setMountAttr sets attributes on the mount at path, and on every mount
// under it when recursive.
func setMountAttr(path string, attr uint64, recursive bool) error {
	flags := uint(0)
	if recursive {
		flags = unix.AT_RECURSIVE
	}
	if err := unix.MountSetattr(unix.AT_FDCWD, path, flags, &unix.MountAttr{Attr_set: attr}); err != nil {
		return fmt.Errorf("mount_setattr %s: %w", path, err)
	}
	return nil
}

// bindSystem binds the host's d read-only at the same place, or copies
// the symlink when d is one (/bin -> usr/bin on merged-/usr systems).
func bindSystem(d string) error {
	src, dst := "/oldroot"+d, "/newroot"+d
	fi, err := os.Lstat(src)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return err
	case fi.Mode()&os.ModeSymlink != 0:
		target, err := os.Readlink(src)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.Symlink(target, dst)
	case !fi.IsDir():
		return nil
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	if err := unix.Mount(src, dst, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("binding %s: %w", d, err)
	}
	return setMountAttr(dst, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV, true)
}

// buildDev makes a /dev of the harmless character devices (bound from
// the host's, since a user namespace cannot create device nodes), the
// /dev/fd links and a private /dev/shm: no block devices, no terminals of
// others, no kmsg.
func buildDev() error {
	if err := mountTmpfs("/newroot/dev", "mode=0755"); err != nil {
		return err
	}
	for _, n := range DevFiles {
		src, dst := "/oldroot/dev/"+n, "/newroot/dev/"+n
		if _, err := os.Stat(src); err != nil {
			continue
		}
		f, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY, 0o666)
		if err != nil {
			return err
		}
		f.Close()
		if err := unix.Mount(src, dst, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("binding %s: %w", src, err)
		}
	}
	for name, target := range map[string]string{
		"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2",
	} {
		if err := os.Symlink(target, "/newroot/dev/"+name); err != nil {
			return err
		}
	}
	if err := os.Mkdir("/newroot/dev/shm", 0o1777); err != nil {
		return err
	}
	if err := mountTmpfs("/newroot/dev/shm", "mode=1777"); err != nil {
		return err
	}
	return setMountAttr("/newroot/dev", unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID, false)
}

// placeMount puts one policy directory at its own path in the new root:
// the detached idmapped mount the parent made, or a clone of the host's.
// Neither the host's path nor the place in the new root may pass through
// a symbolic link: a command could have planted one in the workspace on
// an earlier call, to have a directory it may only read, or one outside,
// mounted read-write where the link points.
func placeMount(m Mount) error {
	dst := "/newroot" + m.Path
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	target, err := openNoSymlinks(dst)
	if err != nil {
		return err
	}
	defer unix.Close(target)
	tree := m.FD
	if tree == 0 {
		src, err := openNoSymlinks("/oldroot" + m.Path)
		if err != nil {
			return err
		}
		tree, err = unix.OpenTree(src, "", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE|unix.AT_EMPTY_PATH)
		unix.Close(src)
		if err != nil {
			return fmt.Errorf("open_tree: %w", err)
		}
		attr := uint64(unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV)
		if m.RO {
			attr |= unix.MOUNT_ATTR_RDONLY
		}
		if err := unix.MountSetattr(tree, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &unix.MountAttr{Attr_set: attr}); err != nil {
			unix.Close(tree)
			return fmt.Errorf("mount_setattr: %w", err)
		}
	}
	defer unix.Close(tree)
	if err := unix.MoveMount(tree, "", target, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH); err != nil {
		return fmt.Errorf("move_mount: %w", err)
	}
	return nil
}

// openNoSymlinks opens the directory at path for use as a mount source or
// target, refusing a path with a symbolic link anywhere on it.
func openNoSymlinks(path string) (int, error) {
	fd, err := unix.Openat2(unix.AT_FDCWD, path, &unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	if err != nil {
		return -1, fmt.Errorf("opening %s: %w", path, err)
	}
	return fd, nil
}

// loopbackUp brings up lo in the new network namespace, so servers a
// command starts on 127.0.0.1 work and the proxy can listen there.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}
