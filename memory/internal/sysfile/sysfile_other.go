//go:build !unix

package sysfile

import (
	"io/fs"
	"os"
)

func open(name string, flag int, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(name, flag, perm.Perm())
}

func rename(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }
