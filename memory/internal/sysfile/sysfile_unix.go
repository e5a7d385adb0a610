//go:build unix

package sysfile

import (
	"io/fs"
	"os"
	"syscall"
)

func open(name string, flag int, perm fs.FileMode) (*os.File, error) {
	for {
		fd, err := syscall.Open(name, flag|syscall.O_CLOEXEC, uint32(perm.Perm()))
		if err == nil {
			return os.NewFile(uintptr(fd), name), nil
		}
		if err != syscall.EINTR {
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
	}
}

func rename(oldpath, newpath string) error {
	for {
		err := syscall.Rename(oldpath, newpath)
		if err == nil {
			return nil
		}
		if err != syscall.EINTR {
			return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: err}
		}
	}
}
