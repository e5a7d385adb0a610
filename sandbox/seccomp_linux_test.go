//go:build linux

package sandbox

import (
	"encoding/binary"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// runFilter interprets the classic BPF opcodes seccompFilter emits
// against one system call, as the kernel would.
func runFilter(t *testing.T, prog []unix.SockFilter, arch uint32, nr uintptr, args ...uint64) uint32 {
	t.Helper()
	data := make([]byte, 64)
	binary.LittleEndian.PutUint32(data[0:], uint32(nr))
	binary.LittleEndian.PutUint32(data[4:], arch)
	for i, a := range args {
		binary.LittleEndian.PutUint64(data[16+8*i:], a)
	}
	var acc uint32
	for pc := 0; pc < len(prog); pc++ {
		in := prog[pc]
		switch in.Code {
		case bpfLdAbs:
			acc = binary.LittleEndian.Uint32(data[in.K:])
		case bpfAndK:
			acc &= in.K
		case bpfRetK:
			return in.K
		case bpfJaK:
			pc += int(in.K)
		case bpfJeqK, bpfJsetK, bpfJgeK:
			var ok bool
			switch in.Code {
			case bpfJeqK:
				ok = acc == in.K
			case bpfJsetK:
				ok = acc&in.K != 0
			default:
				ok = acc >= in.K
			}
			if ok {
				pc += int(in.Jt)
			} else {
				pc += int(in.Jf)
			}
		default:
			t.Fatalf("unknown opcode %#x at %d", in.Code, pc)
		}
	}
	t.Fatal("the filter fell off its end")
	return 0
}

func TestSeccompFilterDecisions(t *testing.T) {
	prog, err := seccompFilter()
	if err != nil {
		t.Fatal(err)
	}
	if len(prog) > 4096 {
		t.Fatalf("%d instructions, the kernel takes 4096", len(prog))
	}
	t.Logf("%d instructions for %s", len(prog), runtime.GOARCH)
	native := archFilter().audit
	const (
		allow, eperm, enosys, enotsup = retAllow, retEPERM, retENOSYS, retENOTSUP
	)
	for _, tt := range []struct {
		name string
		nr   uintptr
		args []uint64
		want uint32
	}{
		{"tcp socket", unix.SYS_SOCKET, []uint64{unix.AF_INET, unix.SOCK_STREAM | unix.SOCK_CLOEXEC, 0}, allow},
		{"tcp6 socket, explicit protocol", unix.SYS_SOCKET, []uint64{unix.AF_INET6, unix.SOCK_STREAM, unix.IPPROTO_TCP}, allow},
		{"unix datagram socket", unix.SYS_SOCKET, []uint64{unix.AF_UNIX, unix.SOCK_DGRAM, 0}, allow},
		{"mptcp socket", unix.SYS_SOCKET, []uint64{unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_MPTCP}, eperm},
		{"udp socket", unix.SYS_SOCKET, []uint64{unix.AF_INET, unix.SOCK_DGRAM | unix.SOCK_NONBLOCK, 0}, eperm},
		{"raw socket", unix.SYS_SOCKET, []uint64{unix.AF_INET6, unix.SOCK_RAW, 58}, eperm},
		{"packet socket", unix.SYS_SOCKET, []uint64{unix.AF_PACKET, unix.SOCK_RAW, 0x300}, eperm},
		{"netlink socket", unix.SYS_SOCKET, []uint64{unix.AF_NETLINK, unix.SOCK_RAW, 0}, eperm},
		{"vsock socket", unix.SYS_SOCKET, []uint64{unix.AF_VSOCK, unix.SOCK_STREAM, 0}, eperm},
		{"high bits of the domain ignored", unix.SYS_SOCKET, []uint64{1<<32 | unix.AF_PACKET, unix.SOCK_RAW, 0}, eperm},
		{"block device node", unix.SYS_MKNODAT, []uint64{0, 0, unix.S_IFBLK | 0o600, 0}, eperm},
		{"char device node", unix.SYS_MKNODAT, []uint64{0, 0, unix.S_IFCHR | 0o600, 0}, eperm},
		{"fifo", unix.SYS_MKNODAT, []uint64{0, 0, unix.S_IFIFO | 0o600, 0}, allow},
		{"setuid regular file by mknod", unix.SYS_MKNODAT, []uint64{0, 0, unix.S_IFREG | 0o4755, 0}, eperm},
		{"fchmodat setuid", unix.SYS_FCHMODAT, []uint64{0, 0, 0o4755}, eperm},
		{"fchmodat plain", unix.SYS_FCHMODAT, []uint64{0, 0, 0o755}, allow},
		{"fchmod setgid", unix.SYS_FCHMOD, []uint64{3, 0o2755}, eperm},
		{"openat creating setuid", unix.SYS_OPENAT, []uint64{0, 0, unix.O_CREAT, 0o4755}, eperm},
		{"openat plain", unix.SYS_OPENAT, []uint64{0, 0, unix.O_RDONLY, 0}, allow},
		{"openat2", unix.SYS_OPENAT2, nil, enosys},
		{"clone thread", unix.SYS_CLONE, []uint64{unix.CLONE_VM | unix.CLONE_THREAD | unix.CLONE_SIGHAND}, allow},
		{"clone new user ns", unix.SYS_CLONE, []uint64{unix.CLONE_NEWUSER | uint64(unix.SIGCHLD)}, eperm},
		{"clone3", unix.SYS_CLONE3, nil, enosys},
		{"unshare files", unix.SYS_UNSHARE, []uint64{unix.CLONE_FILES}, allow},
		{"unshare net", unix.SYS_UNSHARE, []uint64{unix.CLONE_NEWNET}, eperm},
		{"ioctl TIOCSTI", unix.SYS_IOCTL, []uint64{0, unix.TIOCSTI}, eperm},
		{"ioctl TIOCGWINSZ", unix.SYS_IOCTL, []uint64{0, unix.TIOCGWINSZ}, allow},
		{"personality query", unix.SYS_PERSONALITY, []uint64{0xffffffff}, allow},
		{"personality no ASLR", unix.SYS_PERSONALITY, []uint64{0x0040000}, eperm},
		{"mount", unix.SYS_MOUNT, nil, eperm},
		{"ptrace", unix.SYS_PTRACE, nil, eperm},
		{"keyctl", unix.SYS_KEYCTL, nil, eperm},
		{"bpf", unix.SYS_BPF, nil, eperm},
		{"io_uring_setup", unix.SYS_IO_URING_SETUP, nil, eperm},
		{"fsetxattr", unix.SYS_FSETXATTR, nil, enotsup},
		{"read", unix.SYS_READ, nil, allow},
		{"execve", unix.SYS_EXECVE, nil, allow},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := runFilter(t, prog, native, tt.nr, tt.args...); got != tt.want {
				t.Fatalf("got %#x, want %#x", got, tt.want)
			}
		})
	}
	t.Run("another architecture is killed", func(t *testing.T) {
		if got := runFilter(t, prog, unix.AUDIT_ARCH_I386, unix.SYS_READ); got != retKill {
			t.Fatalf("got %#x, want kill", got)
		}
	})
	if runtime.GOARCH == "amd64" {
		t.Run("x32 system calls are killed", func(t *testing.T) {
			if got := runFilter(t, prog, native, 0x40000000|unix.SYS_READ); got != retKill {
				t.Fatalf("got %#x, want kill", got)
			}
		})
	}
}
