package tools

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// contained is the single gate between the filesystem tools and the disk.
// Every path a tool touches comes out of resolve, and every open, stat,
// listing and write goes through a method here (contain.go and its
// per-platform contain_*.go files).
//
// Containment is checked twice. resolve works on names: it refuses a
// lexical escape and follows symbolic links to find the real path, which
// it refuses when that lies outside. The open then walks that real path
// from the workspace root with openat and O_NOFOLLOW on every component
// (openat2 with RESOLVE_BENEATH and RESOLVE_NO_SYMLINKS where the kernel
// has it). The real path has no symbolic links in it, so any link the walk
// meets was put there after resolve looked, and the open fails before a
// byte is read or written.
type contained struct {
	// root is the workspace with every symbolic link resolved.
	root string
	// alias is the workspace as the caller spelled it (made absolute but
	// not resolved). A model told "your workspace is /home/me/ws" will send
	// absolute paths under that spelling even when /home is a symlink.
	alias string
	// beforeOpen, when set, runs between resolving a path and opening it.
	// Tests use it to swap a directory for a symbolic link in exactly the
	// window the openat walk exists to close.
	beforeOpen func()
}

func newContained(workspace string) (*contained, error) {
	if workspace == "" {
		return nil, errors.New("workspace path is empty")
	}
	abs, err := filepath.Abs(workspace)
	if err != nil {
		return nil, errorf("workspace %q: %w", workspace, err)
	}
	root, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, errorf("workspace %q: %w", workspace, err)
	}
	fi, err := os.Stat(root)
	if err != nil {
		return nil, errorf("workspace %q: %w", workspace, err)
	}
	if !fi.IsDir() {
		return nil, errorf("workspace %q is not a directory", workspace)
	}
	return &contained{root: root, alias: abs}, nil
}

// resolve maps a tool's path argument to a real path inside the workspace.
func (c *contained) resolve(p string) (string, error) {
	if filepath.IsAbs(p) && c.alias != c.root && within(c.alias, filepath.Clean(p)) {
		rel, err := filepath.Rel(c.alias, filepath.Clean(p))
		if err == nil {
			p = rel
		}
	}
	return resolve(c.root, p)
}

// rel turns a real path inside the workspace into the workspace-relative
// form shown to the model. Slashes are used on every platform because the
// model reads and writes paths in that form.
func (c *contained) rel(real string) string {
	r, err := filepath.Rel(c.root, real)
	if err != nil {
		return real
	}
	return filepath.ToSlash(r)
}

// open resolves p and opens it for reading, refusing anything that is not
// a regular file without blocking on it (see openRegular).
func (c *contained) open(p string) (*os.File, string, error) {
	real, err := c.resolve(p)
	if err != nil {
		return nil, "", err
	}
	if c.beforeOpen != nil {
		c.beforeOpen()
	}
	f, err := c.openRegular(real)
	if err != nil {
		return nil, "", describeOpenErr(p, err)
	}
	return f, real, nil
}

// stat resolves p and stats what it names, through a handle opened the
// same contained way as a read.
func (c *contained) stat(p string) (fs.FileInfo, string, error) {
	real, err := c.resolve(p)
	if err != nil {
		return nil, "", err
	}
	if c.beforeOpen != nil {
		c.beforeOpen()
	}
	f, err := c.openReal(real, statFlags)
	if err != nil {
		return nil, "", describeOpenErr(p, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, "", describeOpenErr(p, err)
	}
	return fi, real, nil
}

// relReal turns a real path from resolve into the slash-separated path
// below the root that the openat walk follows.
func (c *contained) relReal(real string) (string, error) {
	if !within(c.root, real) {
		return "", errOutside
	}
	r, err := filepath.Rel(c.root, real)
	if err != nil {
		return "", errOutside
	}
	return filepath.ToSlash(r), nil
}

// errOutside is the walk's refusal of a path that is not below the root.
var errOutside = errors.New("outside the workspace")

// errLinkAppeared is the walk's refusal of a symbolic link that was not
// there when the path was resolved.
var errLinkAppeared = errors.New("a symbolic link appeared in the path while it was being opened; it leads outside the workspace")

// insideTarget reports whether the symbolic link at real (already known to
// sit inside the workspace) points somewhere inside the workspace, and
// returns the resolved target. The walking tools use it to decide whether a
// link is safe to read through.
func (c *contained) insideTarget(real string) (string, bool) {
	t, err := filepath.EvalSymlinks(real)
	if err != nil {
		return "", false
	}
	return t, within(c.root, t)
}

// resolve turns p, a path argument relative to root or absolute, into the
// real path it names, and refuses any p that is or leads outside root.
//
// root must already be absolute, clean and free of symbolic links. p is
// cleaned lexically first, so "a/../b" means "b" whatever a is. The part of
// the path that exists is then resolved through its symbolic links; the part
// that does not yet exist (a file about to be written, say) is appended as
// is, since nothing there can redirect it. A dangling symbolic link is
// refused because writing through it would create its target, which may lie
// anywhere.
func resolve(root, p string) (string, error) {
	if p == "" {
		return "", errors.New("path is empty")
	}
	if strings.IndexByte(p, 0) >= 0 {
		return "", errorf("path %q contains a NUL byte", p)
	}
	var abs string
	if filepath.IsAbs(p) {
		abs = filepath.Clean(p)
	} else {
		abs = filepath.Join(root, p)
	}
	if !within(root, abs) {
		return "", outsideErr(p)
	}
	real, err := realpathMissing(abs)
	if err != nil {
		return "", errorf("path %q: %w", p, err)
	}
	if !within(root, real) {
		return "", errorf("path %q is outside the workspace (it leads out through a symbolic link)", p)
	}
	return real, nil
}

func outsideErr(p string) error {
	return errorf("path %q is outside the workspace; use a path relative to the workspace", p)
}

// realpathMissing is EvalSymlinks for a path whose trailing components may
// not exist yet.
func realpathMissing(abs string) (string, error) {
	existing := abs
	var tail []string
	for {
		real, err := filepath.EvalSymlinks(existing)
		if err == nil {
			return filepath.Join(append([]string{real}, tail...)...), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", unwrapPathErr(err)
		}
		if fi, lerr := os.Lstat(existing); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return "", errors.New("it passes through a symbolic link whose target does not exist")
		}
		parent := filepath.Dir(existing)
		if parent == existing {
			return abs, nil
		}
		tail = append([]string{filepath.Base(existing)}, tail...)
		existing = parent
	}
}

// within reports whether p is root or below it. Both must be clean.
func within(root, p string) bool {
	if p == root {
		return true
	}
	prefix := root
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	return strings.HasPrefix(p, prefix)
}

// unwrapPathErr drops the *fs.PathError wrapper, whose message repeats an
// absolute host path the model never sent.
func unwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func describeOpenErr(p string, err error) error {
	switch {
	case errors.Is(err, errLinkAppeared), errors.Is(err, errOutside):
		return errorf("path %q: %w", p, err)
	case errors.Is(err, fs.ErrNotExist):
		return errorf("path %q does not exist", p)
	case errors.Is(err, fs.ErrPermission):
		return errorf("path %q: permission denied", p)
	default:
		return errorf("path %q: %w", p, unwrapPathErr(err))
	}
}

// readFound reads a file that walk reported (its target, which walk has
// already checked is inside the workspace), giving up past limit bytes. The
// content is read into buf when it fits, so a caller scanning many files
// can reuse one buffer instead of allocating per file.
func (c *contained) readFound(real string, limit int64, buf []byte) (data []byte, tooBig bool, err error) {
	f, err := c.openRegular(real)
	if errors.Is(err, errNotRegular) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	if !fi.Mode().IsRegular() {
		return nil, false, nil
	}
	if fi.Size() > limit {
		return nil, true, nil
	}
	// One byte of slack shows whether the file grew since the Stat.
	want := int(fi.Size()) + 1
	if cap(buf) < want {
		buf = make([]byte, want)
	}
	buf = buf[:want]
	n, err := io.ReadFull(f, buf)
	switch {
	case err == nil:
		// The file grew; fall back to reading what there is now, bounded.
		rest, err := io.ReadAll(io.LimitReader(f, limit+1-int64(n)))
		if err != nil {
			return nil, false, err
		}
		data = append(buf[:n], rest...)
		if int64(len(data)) > limit {
			return nil, true, nil
		}
		return data, false, nil
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return buf[:n], false, nil
	default:
		return nil, false, err
	}
}
