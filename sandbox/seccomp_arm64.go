//go:build linux && arm64

package sandbox

import "golang.org/x/sys/unix"

func archFilter() archRules {
	return archRules{audit: unix.AUDIT_ARCH_AARCH64, denied: []uintptr{unix.SYS_LOOKUP_DCOOKIE}}
}
