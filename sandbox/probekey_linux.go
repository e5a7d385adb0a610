//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"strings"
	"syscall"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// probeKey returns a key for what [Probe] finds here: it changes with
// everything that can change the answer without a new build of this
// program: the boot (a new kernel, new boot parameters, new modules),
// the kernel release, this process's ids and capabilities, its user and
// mount namespaces, its own seccomp state, the sysctls that gate user
// namespaces, the Landlock ABI, the temporary directory the idmap probe
// mounts, and the program (its Go build ID and its file) and the
// helper's build ID. Empty means no key can be made: probe every time.
func probeKey(helperID string) string {
	boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	var uts unix.Utsname
	if unix.Uname(&uts) != nil {
		return ""
	}
	parts := []string{
		"v1", string(boot), unix.ByteSliceToString(uts.Release[:]), unix.ByteSliceToString(uts.Version[:]),
		fmt.Sprint(os.Getuid(), os.Geteuid(), os.Getgid(), os.Getegid()),
		os.TempDir(), helperID,
	}
	abi, err := llsys.LandlockGetABIVersion()
	parts = append(parts, fmt.Sprint(abi, err))
	for _, p := range []string{
		"/proc/sys/user/max_user_namespaces",
		"/proc/sys/kernel/unprivileged_userns_clone",
		"/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
	} {
		b, err := os.ReadFile(p)
		if err != nil {
			parts = append(parts, p+": absent")
			continue
		}
		parts = append(parts, p+": "+strings.TrimSpace(string(b)))
	}
	for _, ns := range []string{"/proc/self/ns/user", "/proc/self/ns/mnt"} {
		l, err := os.Readlink(ns)
		if err != nil {
			return ""
		}
		parts = append(parts, l)
	}
	// This process's own seccomp mode, no_new_privs and capabilities
	// (a container's profile), by system call: cheaper than reading
	// /proc/self/status.
	seccomp, _ := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0)
	nnp, _ := unix.PrctlRetInt(unix.PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0)
	var caps [2]unix.CapUserData
	if err := unix.Capget(&unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}, &caps[0]); err != nil {
		return ""
	}
	parts = append(parts, fmt.Sprint(seccomp, nnp, caps))
	exe, err := os.Open("/proc/self/exe")
	if err != nil {
		return ""
	}
	defer exe.Close()
	id, _ := goBuildID(exe)
	fi, err := exe.Stat()
	if err != nil {
		return ""
	}
	st, _ := fi.Sys().(*syscall.Stat_t)
	parts = append(parts, id, fmt.Sprint(fi.Size(), fi.ModTime().UnixNano()))
	if st != nil {
		parts = append(parts, fmt.Sprint(st.Dev, st.Ino))
	}
	return hashKey(parts)
}
