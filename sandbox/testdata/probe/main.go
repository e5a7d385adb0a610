// Command probe makes one system call that the sandbox tests try from
// inside a confined command, prints "ok" or "error: <errno text>", and
// exits 0 or 1. Shell tools cannot reach most of these calls (an MPTCP
// socket, a raw add_key), so the tests build this and run it confined.
package main

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Println("usage: probe OP [ARGS]")
		os.Exit(2)
	}
	err := run(os.Args[1], os.Args[2:])
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println("ok")
}

func atoi(s string) int {
	n, err := strconv.ParseInt(s, 0, 64)
	if err != nil {
		panic(err)
	}
	return int(n)
}

func sys(nr uintptr, a ...uintptr) error {
	var args [6]uintptr
	copy(args[:], a)
	_, _, e := unix.Syscall6(nr, args[0], args[1], args[2], args[3], args[4], args[5])
	if e != 0 {
		return e
	}
	return nil
}

func str(s string) uintptr {
	p, _ := unix.BytePtrFromString(s)
	return uintptr(unsafe.Pointer(p))
}

func run(op string, args []string) error {
	switch op {
	case "socket": // domain type protocol
		fd, err := unix.Socket(atoi(args[0]), atoi(args[1]), atoi(args[2]))
		if err == nil {
			unix.Close(fd)
		}
		return err
	case "socketpair": // domain type
		fds, err := unix.Socketpair(atoi(args[0]), atoi(args[1]), 0)
		if err == nil {
			unix.Close(fds[0])
			unix.Close(fds[1])
		}
		return err
	case "mptcp-http": // ip:port; an HTTP exchange over IPPROTO_MPTCP
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_MPTCP)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		ap, err := net.ResolveTCPAddr("tcp4", args[0])
		if err != nil {
			return err
		}
		sa := &unix.SockaddrInet4{Port: ap.Port}
		copy(sa.Addr[:], ap.IP.To4())
		if err := unix.Connect(fd, sa); err != nil {
			return err
		}
		_, err = unix.Write(fd, []byte("GET / HTTP/1.0\r\n\r\n"))
		return err
	case "udp-send": // ip:port
		c, err := net.Dial("udp", args[0])
		if err != nil {
			return err
		}
		defer c.Close()
		_, err = c.Write([]byte("probe"))
		return err
	case "unix-connect": // path, or @name for the abstract namespace
		c, err := net.Dial("unix", args[0])
		if err == nil {
			c.Close()
		}
		return err
	case "mknod": // path b|c|p
		mode := map[string]uint32{"b": unix.S_IFBLK, "c": unix.S_IFCHR, "p": unix.S_IFIFO, "r": unix.S_IFREG, "suid": unix.S_IFREG | unix.S_ISUID}[args[1]]
		return unix.Mknod(args[0], mode|0o700, int(unix.Mkdev(7, 0)))
	case "create": // path mode: open(O_CREAT) with that mode
		fd, err := unix.Open(args[0], unix.O_CREAT|unix.O_WRONLY|unix.O_CLOEXEC, uint32(atoi(args[1])))
		if err == nil {
			unix.Close(fd)
		}
		return err
	case "creat": // path mode
		fd, err := unix.Creat(args[0], uint32(atoi(args[1])))
		if err == nil {
			unix.Close(fd)
		}
		return err
	case "openat2": // path
		how := unix.OpenHow{Flags: unix.O_RDONLY}
		fd, err := unix.Openat2(unix.AT_FDCWD, args[0], &how)
		if err == nil {
			unix.Close(fd)
		}
		return err
	case "chmod": // path mode
		return unix.Chmod(args[0], uint32(atoi(args[1])))
	case "fchmod": // path mode
		f, err := os.Open(args[0])
		if err != nil {
			return err
		}
		defer f.Close()
		return unix.Fchmod(int(f.Fd()), uint32(atoi(args[1])))
	case "fchmodat2": // path mode
		return sys(unix.SYS_FCHMODAT2, uintptr(unix.AT_FDCWD&0xffffffff)|^uintptr(0xffffffff), str(args[0]), uintptr(atoi(args[1])), 0)
	case "chown": // path uid gid
		return unix.Chown(args[0], atoi(args[1]), atoi(args[2]))
	case "utimes": // path
		return unix.Utimes(args[0], []unix.Timeval{{Sec: 1}, {Sec: 1}})
	case "setxattr": // path name
		return unix.Setxattr(args[0], args[1], []byte("1"), 0)
	case "removexattr": // path name
		return unix.Removexattr(args[0], args[1])
	case "ptrace-traceme":
		return sys(unix.SYS_PTRACE, unix.PTRACE_TRACEME)
	case "ptrace-attach": // pid
		return sys(unix.SYS_PTRACE, unix.PTRACE_ATTACH, uintptr(atoi(args[0])))
	case "process_vm_readv":
		return sys(unix.SYS_PROCESS_VM_READV, 1, 0, 0, 0, 0, 0)
	case "pidfd_getfd":
		return sys(unix.SYS_PIDFD_GETFD, ^uintptr(0), 0, 0)
	case "add_key":
		return sys(unix.SYS_ADD_KEY, str("user"), str("probe"), str("x"), 1, ^uintptr(1)) // KEY_SPEC_PROCESS_KEYRING
	case "request_key":
		return sys(unix.SYS_REQUEST_KEY, str("user"), str("probe"), 0, 0)
	case "keyctl":
		return sys(unix.SYS_KEYCTL, unix.KEYCTL_JOIN_SESSION_KEYRING, 0)
	case "bpf":
		return sys(unix.SYS_BPF, unix.BPF_MAP_CREATE, 0, 0)
	case "perf_event_open":
		var attr unix.PerfEventAttr
		attr.Size = uint32(unsafe.Sizeof(attr))
		attr.Type = unix.PERF_TYPE_SOFTWARE
		return sys(unix.SYS_PERF_EVENT_OPEN, uintptr(unsafe.Pointer(&attr)), 0, ^uintptr(0), ^uintptr(0), 0)
	case "userfaultfd":
		return sys(unix.SYS_USERFAULTFD, 0)
	case "io_uring_setup":
		var p [120]byte
		return sys(unix.SYS_IO_URING_SETUP, 1, uintptr(unsafe.Pointer(&p[0])))
	case "unshare": // flags
		return unix.Unshare(atoi(args[0]))
	case "clone-ns": // flags: start /bin/true in new namespaces
		pid, err := syscall.ForkExec("/bin/true", []string{"true"}, &syscall.ProcAttr{Sys: &syscall.SysProcAttr{Cloneflags: uintptr(atoi(args[0]))}})
		if err == nil {
			var ws syscall.WaitStatus
			syscall.Wait4(pid, &ws, 0, nil)
		}
		return err
	case "clone3":
		return sys(unix.SYS_CLONE3, 0, 0)
	case "setns":
		f, err := os.Open("/proc/self/ns/net")
		if err != nil {
			return err
		}
		defer f.Close()
		return unix.Setns(int(f.Fd()), 0)
	case "mount": // dir
		return unix.Mount("none", args[0], "tmpfs", 0, "")
	case "umount": // dir
		return unix.Unmount(args[0], unix.MNT_DETACH)
	case "pivot_root":
		return unix.PivotRoot("/tmp", "/tmp")
	case "chroot":
		return unix.Chroot("/tmp")
	case "open_tree":
		fd, err := unix.OpenTree(unix.AT_FDCWD, "/tmp", unix.OPEN_TREE_CLONE)
		if err == nil {
			unix.Close(fd)
		}
		return err
	case "fsopen":
		fd, err := unix.Fsopen("tmpfs", 0)
		if err == nil {
			unix.Close(fd)
		}
		return err
	case "move_mount":
		return unix.MoveMount(unix.AT_FDCWD, "/tmp", unix.AT_FDCWD, "/tmp", 0)
	case "name_to_handle_at":
		var h [128 + 8]byte
		var mnt int32
		h[0] = 128
		return sys(unix.SYS_NAME_TO_HANDLE_AT, uintptr(unix.AT_FDCWD&0xffffffff)|^uintptr(0xffffffff), str("/"), uintptr(unsafe.Pointer(&h[0])), uintptr(unsafe.Pointer(&mnt)), 0)
	case "open_by_handle_at":
		var h [16]byte
		return sys(unix.SYS_OPEN_BY_HANDLE_AT, 0, uintptr(unsafe.Pointer(&h[0])), 0)
	case "personality": // persona
		_, _, e := unix.Syscall(unix.SYS_PERSONALITY, uintptr(atoi(args[0])), 0, 0)
		if e != 0 {
			return e
		}
		return nil
	case "tiocsti":
		c := byte('x')
		return sys(unix.SYS_IOCTL, 0, unix.TIOCSTI, uintptr(unsafe.Pointer(&c)))
	case "tioclinux":
		c := byte(2)
		return sys(unix.SYS_IOCTL, 0, unix.TIOCLINUX, uintptr(unsafe.Pointer(&c)))
	case "kexec_load":
		return sys(unix.SYS_KEXEC_LOAD, 0, 0, 0, 0)
	case "finit_module":
		return sys(unix.SYS_FINIT_MODULE, ^uintptr(0), str(""), 0)
	case "delete_module":
		return sys(unix.SYS_DELETE_MODULE, str("loop"), 0)
	case "swapon":
		return sys(unix.SYS_SWAPON, str("/tmp/none"), 0)
	case "reboot":
		return sys(unix.SYS_REBOOT, unix.LINUX_REBOOT_MAGIC1, unix.LINUX_REBOOT_MAGIC2, unix.LINUX_REBOOT_CMD_CAD_OFF)
	case "acct":
		return sys(unix.SYS_ACCT, 0)
	case "syslog":
		return sys(unix.SYS_SYSLOG, 10, 0, 0) // SYSLOG_ACTION_SIZE_BUFFER
	case "quotactl":
		return sys(unix.SYS_QUOTACTL, 0, str("/"), 0, 0)
	}
	return fmt.Errorf("unknown op %q", op)
}
