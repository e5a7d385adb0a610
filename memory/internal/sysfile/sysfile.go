// Package sysfile opens the files a turn writes with fewer system calls
// than package os.
//
// On Linux, os.OpenFile sets every descriptor non-blocking and offers it
// to the network poller, which refuses regular files, then sets it back:
// four system calls beyond the open, for each of the handful of files a
// turn opens (the staged session, its durable append, the directory sync,
// the history and its lock). os.Rename first stats the destination. On a
// virtual machine each system call is dear, and these stand between a
// served turn and the next one's first byte.
package sysfile

import (
	"io/fs"
	"os"
)

// Open opens name as os.OpenFile does, with the permission bits of perm
// only (no setuid, setgid or sticky bit). The file is not registered with
// the network poller, which takes no regular files or directories anyway.
func Open(name string, flag int, perm fs.FileMode) (*os.File, error) {
	return open(name, flag, perm)
}

// Rename renames oldpath to newpath as os.Rename does, without first
// checking whether newpath is a directory: renaming a file over one fails
// all the same.
func Rename(oldpath, newpath string) error {
	return rename(oldpath, newpath)
}
