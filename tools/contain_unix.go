//go:build unix

package tools

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path"
	"strings"

	"golang.org/x/sys/unix"
)

// dirFlag asks open for a directory.
const dirFlag = unix.O_DIRECTORY

// openReal opens real (a path from resolve) with flags, refusing it if any
// component is now a symbolic link or the path is not below the root.
func (c *contained) openReal(real string, flags int) (*os.File, error) {
	rel, err := c.relReal(real)
	if err != nil {
		return nil, err
	}
	fd, err := c.openBeneath(rel, flags, 0)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), real), nil
}

// openBeneath opens rel below the root. It tries openat2 first (Linux
// 5.6+), where the kernel itself refuses any symbolic link and any escape,
// and otherwise walks the components with openat and O_NOFOLLOW.
func (c *contained) openBeneath(rel string, flags int, perm uint32) (int, error) {
	rootFD, err := unix.Open(c.root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	defer unix.Close(rootFD)
	if fd, err, ok := openat2Beneath(rootFD, rel, flags|unix.O_CLOEXEC, perm); ok {
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EXDEV) {
			return -1, errLinkAppeared
		}
		return fd, err
	}
	return walkOpen(rootFD, rel, flags, perm)
}

// walkOpen follows rel from dirFD one component at a time. Every step uses
// O_NOFOLLOW, so a component that became a symbolic link fails the open
// instead of being followed.
func walkOpen(dirFD int, rel string, flags int, perm uint32) (int, error) {
	comps := splitRel(rel)
	if len(comps) == 0 {
		return unix.Openat(dirFD, ".", flags|unix.O_CLOEXEC, perm)
	}
	cur, owned := dirFD, false
	defer func() {
		if owned {
			unix.Close(cur)
		}
	}()
	for i, comp := range comps {
		last := i == len(comps)-1
		f := unix.O_RDONLY | unix.O_DIRECTORY
		if last {
			f = flags
		}
		fd, err := unix.Openat(cur, comp, f|unix.O_NOFOLLOW|unix.O_CLOEXEC, perm)
		if err != nil {
			if errors.Is(err, unix.ELOOP) || (errors.Is(err, unix.ENOTDIR) && isLinkAt(cur, comp)) {
				return -1, errLinkAppeared
			}
			return -1, &fs.PathError{Op: "open", Path: rel, Err: err}
		}
		if owned {
			unix.Close(cur)
			owned = false
		}
		if last {
			// O_PATH with O_NOFOLLOW opens a link itself rather than
			// failing, so look at what was opened.
			var st unix.Stat_t
			if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT == unix.S_IFLNK {
				unix.Close(fd)
				return -1, errLinkAppeared
			}
			return fd, nil
		}
		cur, owned = fd, true
	}
	return -1, errors.New("unreachable")
}

func isLinkAt(dirFD int, name string) bool {
	var st unix.Stat_t
	return unix.Fstatat(dirFD, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK
}

func splitRel(rel string) []string {
	var out []string
	for _, c := range strings.Split(rel, "/") {
		if c != "" && c != "." {
			out = append(out, c)
		}
	}
	return out
}

// mkdirBeneath creates the directories of rel below the root that do not
// exist yet, each with mkdirat relative to its already-opened parent, and
// returns the last one open. A component that is a symbolic link is
// refused rather than followed.
func (c *contained) mkdirBeneath(rel string) (*os.File, error) {
	rootFD, err := unix.Open(c.root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	cur := rootFD
	for _, comp := range splitRel(rel) {
		if err := unix.Mkdirat(cur, comp, uint32(workspaceDirPerm)); err != nil && !errors.Is(err, unix.EEXIST) {
			unix.Close(cur)
			return nil, err
		}
		fd, err := unix.Openat(cur, comp, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			link := errors.Is(err, unix.ELOOP) || isLinkAt(cur, comp)
			unix.Close(cur)
			if link {
				return nil, errLinkAppeared
			}
			if errors.Is(err, unix.ENOTDIR) {
				return nil, errorf("%q is a file, not a directory", comp)
			}
			return nil, err
		}
		unix.Close(cur)
		cur = fd
	}
	return os.NewFile(uintptr(cur), path.Join(c.root, rel)), nil
}

// writeAtomic replaces the file at real (a path from resolve) with data,
// creating parent directories as needed. The data goes to a temporary file
// in the same directory which is then renamed over the target, so a reader
// never sees a half-written file and a crash leaves the old content intact.
// Every step is relative to the parent directory's handle, opened by the
// contained walk, so a directory swapped for a link meanwhile is refused.
// An existing file keeps its permission bits; a new one gets perm.
func (c *contained) writeAtomic(real string, data []byte, perm fs.FileMode) (created bool, err error) {
	rel, err := c.relReal(real)
	if err != nil {
		return false, err
	}
	dirRel, base := path.Split(rel)
	if base == "" || base == "." {
		return false, errors.New("it is a directory")
	}
	if c.beforeOpen != nil {
		c.beforeOpen()
	}
	dir, err := c.mkdirBeneath(dirRel)
	if err != nil {
		return false, err
	}
	defer dir.Close()
	dfd := int(dir.Fd())
	created = true
	var st unix.Stat_t
	if err := unix.Fstatat(dfd, base, &st, unix.AT_SYMLINK_NOFOLLOW); err == nil {
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFDIR:
			return false, errors.New("it is a directory")
		case unix.S_IFLNK:
			return false, errLinkAppeared
		}
		perm = fs.FileMode(st.Mode & 0o777)
		created = false
	}
	var rnd [8]byte
	rand.Read(rnd[:])
	tmpName := ".joshbot-write-" + hex.EncodeToString(rnd[:])
	fd, err := unix.Openat(dfd, tmpName, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return false, err
	}
	tmp := os.NewFile(uintptr(fd), tmpName)
	defer func() {
		if err != nil {
			unix.Unlinkat(dfd, tmpName, 0)
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		tmp.Close()
		return false, err
	}
	if err = tmp.Chmod(perm); err != nil {
		tmp.Close()
		return false, err
	}
	if err = tmp.Sync(); err != nil {
		tmp.Close()
		return false, err
	}
	if err = tmp.Close(); err != nil {
		return false, err
	}
	if err = unix.Renameat(dfd, tmpName, dfd, base); err != nil {
		return false, err
	}
	// The directory sync makes the rename itself durable, as package
	// memory/atomicfile does for joshbot's own files; this write stays on
	// the directory descriptor so the workspace containment holds.
	if err := unix.Fsync(dfd); err != nil {
		return created, errorf("sync directory: %w", err)
	}
	return created, nil
}
