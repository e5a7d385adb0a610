//go:build linux && amd64

package sandbox

import "golang.org/x/sys/unix"

func archFilter() archRules {
	return archRules{
		audit: unix.AUDIT_ARCH_X86_64,
		x32:   true,
		denied: []uintptr{
			unix.SYS_USELIB, unix.SYS_IOPL, unix.SYS_IOPERM, unix.SYS_LOOKUP_DCOOKIE,
		},
		rules: []argRule{
			{unix.SYS_MKNOD, denyDeviceNode(1)},
			{unix.SYS_CHMOD, denyArgBits(1, setIDBits)},
			{unix.SYS_OPEN, denyArgBits(2, setIDBits)},
			{unix.SYS_CREAT, denyArgBits(1, setIDBits)},
		},
	}
}
