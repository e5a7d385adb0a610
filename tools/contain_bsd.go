//go:build unix && !linux

package tools

import "golang.org/x/sys/unix"

// statFlags opens a path only to stat it; O_NONBLOCK keeps a FIFO from
// blocking the open.
const statFlags = unix.O_RDONLY | unix.O_NONBLOCK

// openat2Beneath reports that only the component walk is available here.
func openat2Beneath(int, string, int, uint32) (int, error, bool) { return -1, nil, false }
