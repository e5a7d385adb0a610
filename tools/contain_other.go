//go:build !unix

package tools

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// dirFlag and statFlags need nothing special without openat.
const (
	dirFlag   = 0
	statFlags = os.O_RDONLY
)

// openReal opens real (a path from resolve). Without openat this platform
// keeps the resolve-then-open check only.
func (c *contained) openReal(real string, flags int) (*os.File, error) {
	if _, err := c.relReal(real); err != nil {
		return nil, err
	}
	return os.OpenFile(real, flags, 0)
}

// openRegular opens real for reading only if it is a regular file. This
// platform has no O_NONBLOCK, so the check comes after the open.
func (c *contained) openRegular(real string) (*os.File, error) {
	f, err := c.openReal(real, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, &notRegularError{what: "special file"}
	}
	return f, nil
}

// writeAtomic replaces the file at real (a path from resolve) with data,
// creating parent directories as needed. The data goes to a temporary file
// in the same directory which is then renamed over the target, so a reader
// never sees a half-written file and a crash leaves the old content intact.
// An existing file keeps its permission bits; a new one gets perm.
func (c *contained) writeAtomic(real string, data []byte, perm fs.FileMode) (created bool, err error) {
	dir := filepath.Dir(real)
	if err := os.MkdirAll(dir, workspaceDirPerm); err != nil {
		return false, err
	}
	// The directories just created could in principle have been swapped for
	// links by someone racing us; check again before writing into them.
	if again, err := filepath.EvalSymlinks(dir); err != nil || !within(c.root, again) {
		return false, errors.New("parent directory is outside the workspace")
	}
	created = true
	if fi, err := os.Stat(real); err == nil {
		if fi.IsDir() {
			return false, errors.New("it is a directory")
		}
		perm = fi.Mode().Perm()
		created = false
	}
	tmp, err := os.CreateTemp(dir, ".joshbot-write-*")
	if err != nil {
		return false, err
	}
	tmpName := tmp.Name()
	defer func() {
		if err != nil {
			os.Remove(tmpName)
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
	if err = os.Rename(tmpName, real); err != nil {
		return false, err
	}
	return created, nil
}
