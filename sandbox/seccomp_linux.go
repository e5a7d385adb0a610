//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"
)

// The seccomp filter is classic BPF generated here rather than by a
// library: it is some sixty instructions, the rules that matter inspect
// masked arguments (the socket type without SOCK_CLOEXEC, the file type
// bits of a mknod mode, the set-id bits of a chmod mode), and generating
// it keeps the module's dependency list at Landlock and x/sys.

// Classic BPF opcodes (linux/filter.h).
const (
	bpfLdAbs  = 0x20 // BPF_LD | BPF_W | BPF_ABS
	bpfJeqK   = 0x15 // BPF_JMP | BPF_JEQ | BPF_K
	bpfJsetK  = 0x45 // BPF_JMP | BPF_JSET | BPF_K
	bpfJgeK   = 0x35 // BPF_JMP | BPF_JGE | BPF_K
	bpfAndK   = 0x54 // BPF_ALU | BPF_AND | BPF_K
	bpfRetK   = 0x06 // BPF_RET | BPF_K
	bpfJaK    = 0x05 // BPF_JMP | BPF_JA
	seccompNr = 0    // offsetof(struct seccomp_data, nr)
	seccompAr = 4    // offsetof(struct seccomp_data, arch)
)

const (
	retAllow   = unix.SECCOMP_RET_ALLOW
	retKill    = unix.SECCOMP_RET_KILL_PROCESS
	retEPERM   = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	retENOSYS  = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
	retENOTSUP = unix.SECCOMP_RET_ERRNO | uint32(unix.EOPNOTSUPP)
)

// Namespace flags of clone(2) and unshare(2). CLONE_NEWTIME (0x80) is left
// out: in clone's flags that bit belongs to the exit signal.
const cloneNSFlags = unix.CLONE_NEWNS | unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET |
	unix.CLONE_NEWIPC | unix.CLONE_NEWUTS | unix.CLONE_NEWCGROUP

// deniedSyscalls always fail with EPERM: mounting and namespace escapes,
// tracing other processes, the kernel keyring, loading code into the
// kernel, and the rest of the classes a command never needs.
var deniedSyscalls = []uintptr{
	unix.SYS_MOUNT, unix.SYS_UMOUNT2, unix.SYS_PIVOT_ROOT, unix.SYS_CHROOT,
	unix.SYS_MOVE_MOUNT, unix.SYS_OPEN_TREE, unix.SYS_OPEN_TREE_ATTR, unix.SYS_MOUNT_SETATTR,
	unix.SYS_FSOPEN, unix.SYS_FSCONFIG, unix.SYS_FSMOUNT, unix.SYS_FSPICK,
	unix.SYS_SETNS,
	unix.SYS_PTRACE, unix.SYS_PROCESS_VM_READV, unix.SYS_PROCESS_VM_WRITEV, unix.SYS_PIDFD_GETFD,
	unix.SYS_KEXEC_LOAD, unix.SYS_KEXEC_FILE_LOAD,
	unix.SYS_INIT_MODULE, unix.SYS_FINIT_MODULE, unix.SYS_DELETE_MODULE,
	unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY, unix.SYS_KEYCTL,
	unix.SYS_BPF, unix.SYS_PERF_EVENT_OPEN, unix.SYS_USERFAULTFD,
	unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER,
	unix.SYS_SWAPON, unix.SYS_SWAPOFF, unix.SYS_REBOOT, unix.SYS_ACCT,
	unix.SYS_QUOTACTL, unix.SYS_QUOTACTL_FD,
	unix.SYS_OPEN_BY_HANDLE_AT, unix.SYS_NAME_TO_HANDLE_AT,
	unix.SYS_SYSLOG,
}

// noXattrSyscalls fail with EOPNOTSUPP, as on a filesystem without
// extended attributes. A filter cannot read the attribute's name, so every
// set and remove is refused, not only security.* ones (file capabilities,
// SELinux labels); EOPNOTSUPP rather than EPERM because cp -a, tar and
// rsync then carry on without ACLs instead of failing.
var noXattrSyscalls = []uintptr{
	unix.SYS_SETXATTR, unix.SYS_LSETXATTR, unix.SYS_FSETXATTR, unix.SYS_SETXATTRAT,
	unix.SYS_REMOVEXATTR, unix.SYS_LREMOVEXATTR, unix.SYS_FREMOVEXATTR, unix.SYS_REMOVEXATTRAT,
}

// bpfBlock is a run of instructions whose jumps name labels; "allow",
// "deny" and "kill" are the block's own return instructions.
type bpfBlock struct {
	ins    []unix.SockFilter
	jumps  map[int][2]string // instruction index -> labels for jt, jf ("" = next)
	labels map[string]int
}

func newBlock() *bpfBlock {
	return &bpfBlock{jumps: map[int][2]string{}, labels: map[string]int{}}
}

func (b *bpfBlock) stmt(code uint16, k uint32) *bpfBlock {
	b.ins = append(b.ins, unix.SockFilter{Code: code, K: k})
	return b
}

func (b *bpfBlock) jump(code uint16, k uint32, jt, jf string) *bpfBlock {
	b.jumps[len(b.ins)] = [2]string{jt, jf}
	b.ins = append(b.ins, unix.SockFilter{Code: code, K: k})
	return b
}

func (b *bpfBlock) label(name string) *bpfBlock {
	b.labels[name] = len(b.ins)
	return b
}

// loadArg loads the low 32 bits of argument i. Both supported
// architectures are little-endian, and every argument inspected is an
// int, a mode or flags whose meaning lives in the low 32 bits.
func (b *bpfBlock) loadArg(i int) *bpfBlock { return b.stmt(bpfLdAbs, uint32(16+8*i)) }

// finish appends the return labels and resolves the jumps.
func (b *bpfBlock) finish() ([]unix.SockFilter, error) {
	for name, ret := range map[string]uint32{"allow": retAllow, "deny": retEPERM, "kill": retKill} {
		b.label(name).stmt(bpfRetK, ret)
	}
	for i, js := range b.jumps {
		for n, l := range js {
			if l == "" {
				continue
			}
			to, ok := b.labels[l]
			if !ok || to <= i || to-i-1 > 255 {
				return nil, fmt.Errorf("seccomp: bad jump to %q", l)
			}
			if n == 0 {
				b.ins[i].Jt = uint8(to - i - 1)
			} else {
				b.ins[i].Jf = uint8(to - i - 1)
			}
		}
	}
	return b.ins, nil
}

// argRule is a syscall whose arguments decide: its block starts with the
// syscall number already checked and must end in a return.
type argRule struct {
	nr    uintptr
	build func(*bpfBlock)
}

// denyArgBits refuses the call when argument i has any of mask's bits.
func denyArgBits(i int, mask uint32) func(*bpfBlock) {
	return func(b *bpfBlock) { b.loadArg(i).jump(bpfJsetK, mask, "deny", "allow") }
}

// denyDeviceNode refuses mknod modes that make a block or character
// device, or a set-id file; FIFOs, sockets and plain regular files stay
// allowed.
func denyDeviceNode(i int) func(*bpfBlock) {
	return func(b *bpfBlock) {
		b.loadArg(i).jump(bpfJsetK, setIDBits, "deny", "").
			stmt(bpfAndK, unix.S_IFMT).
			jump(bpfJeqK, unix.S_IFCHR, "deny", "").
			jump(bpfJeqK, unix.S_IFBLK, "deny", "allow")
	}
}

// setIDBits are the mode bits that make an executable run as its owner or
// group. Through an idmapped workspace the owner on disk is the
// workspace's owner, root when joshbot runs as root, so a command must
// never set them: not by chmod, and not in the mode of a file it creates.
const setIDBits = unix.S_ISUID | unix.S_ISGID

// commonArgRules are the argument checks every architecture shares.
func commonArgRules() []argRule {
	setID := uint32(setIDBits)
	return []argRule{
		// Only Unix sockets and TCP: no raw, packet, netlink, UDP or MPTCP
		// (IPPROTO_MPTCP is a SOCK_STREAM protocol that Landlock's TCP
		// rules do not cover).
		{unix.SYS_SOCKET, func(b *bpfBlock) {
			b.loadArg(0).jump(bpfJeqK, unix.AF_UNIX, "allow", "").
				jump(bpfJeqK, unix.AF_INET, "inet", "").
				jump(bpfJeqK, unix.AF_INET6, "inet", "deny").
				label("inet").loadArg(1).stmt(bpfAndK, 0xf).
				jump(bpfJeqK, unix.SOCK_STREAM, "", "deny").
				loadArg(2).jump(bpfJeqK, 0, "allow", "").
				jump(bpfJeqK, unix.IPPROTO_TCP, "allow", "deny")
		}},
		{unix.SYS_SOCKETPAIR, func(b *bpfBlock) { b.loadArg(0).jump(bpfJeqK, unix.AF_UNIX, "allow", "deny") }},
		{unix.SYS_MKNODAT, denyDeviceNode(2)},
		{unix.SYS_FCHMOD, denyArgBits(1, setID)},
		{unix.SYS_FCHMODAT, denyArgBits(2, setID)},
		{unix.SYS_FCHMODAT2, denyArgBits(2, setID)},
		// The creation mode, which glibc, musl and Go pass as 0 when the
		// call creates nothing.
		{unix.SYS_OPENAT, denyArgBits(3, setID)},
		{unix.SYS_CLONE, denyArgBits(0, cloneNSFlags)},
		{unix.SYS_UNSHARE, denyArgBits(0, cloneNSFlags)},
		// Typing into a terminal's input queue, and the console's
		// selection-paste, both inject keystrokes.
		{unix.SYS_IOCTL, func(b *bpfBlock) {
			b.loadArg(1).jump(bpfJeqK, unix.TIOCSTI, "deny", "").
				jump(bpfJeqK, unix.TIOCLINUX, "deny", "allow")
		}},
		// Querying (0xffffffff) and the default persona only: others turn
		// off address space randomisation or change the ABI.
		{unix.SYS_PERSONALITY, func(b *bpfBlock) {
			b.loadArg(0).jump(bpfJeqK, 0, "allow", "").
				jump(bpfJeqK, 0xffffffff, "allow", "deny")
		}},
	}
}

// seccompFilter returns the filter for this architecture, or an error
// wrapping [ErrUnsupported] where there is no syscall table for it.
func seccompFilter() ([]unix.SockFilter, error) {
	arch := archFilter()
	if arch.audit == 0 {
		return nil, fmt.Errorf("%w: the seccomp filter has no system call table for %s", ErrUnsupported, runtime.GOARCH)
	}
	prog := []unix.SockFilter{
		{Code: bpfLdAbs, K: seccompAr},
		{Code: bpfJeqK, K: arch.audit, Jt: 1},
		{Code: bpfRetK, K: retKill},
		{Code: bpfLdAbs, K: seccompNr},
	}
	if arch.x32 {
		// x32 system calls reach the same kernel code under other numbers.
		prog = append(prog, unix.SockFilter{Code: bpfJgeK, K: 0x40000000, Jf: 1}, unix.SockFilter{Code: bpfRetK, K: retKill})
	}
	// Each check is "if nr == N run the block, else skip over it"; every
	// block ends in a return, so nothing falls through into the next.
	emit := func(nr uintptr, block []unix.SockFilter) error {
		if len(block) > 255 {
			return errors.New("seccomp: block too long")
		}
		prog = append(prog, unix.SockFilter{Code: bpfJeqK, K: uint32(nr), Jf: uint8(len(block))})
		prog = append(prog, block...)
		return nil
	}
	// Glibc and Go fall back to clone(2) when clone3, whose flags live in
	// memory a filter cannot read, is missing.
	if err := emit(unix.SYS_CLONE3, []unix.SockFilter{{Code: bpfRetK, K: retENOSYS}}); err != nil {
		return nil, err
	}
	// openat2 keeps its mode in memory too; callers fall back to openat.
	if err := emit(unix.SYS_OPENAT2, []unix.SockFilter{{Code: bpfRetK, K: retENOSYS}}); err != nil {
		return nil, err
	}
	for _, nr := range append(deniedSyscalls, arch.denied...) {
		if err := emit(nr, []unix.SockFilter{{Code: bpfRetK, K: retEPERM}}); err != nil {
			return nil, err
		}
	}
	for _, nr := range noXattrSyscalls {
		if err := emit(nr, []unix.SockFilter{{Code: bpfRetK, K: retENOTSUP}}); err != nil {
			return nil, err
		}
	}
	for _, r := range append(commonArgRules(), arch.rules...) {
		b := newBlock()
		r.build(b)
		block, err := b.finish()
		if err != nil {
			return nil, err
		}
		if err := emit(r.nr, block); err != nil {
			return nil, err
		}
	}
	prog = append(prog, unix.SockFilter{Code: bpfRetK, K: retAllow})
	return prog, nil
}

// archRules is what one architecture adds to the filter.
type archRules struct {
	audit  uint32 // AUDIT_ARCH_*; 0 means unsupported
	x32    bool
	denied []uintptr
	rules  []argRule
}

// probeSeccomp reports whether the kernel has seccomp filters and this
// architecture has a filter.
func probeSeccomp() Layer {
	if _, err := seccompFilter(); err != nil {
		return Layer{Detail: err.Error()}
	}
	if _, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0); err != nil {
		return Layer{Detail: "the kernel has no seccomp (it needs CONFIG_SECCOMP_FILTER): " + err.Error()}
	}
	return Layer{Available: true, Detail: "filter for " + runtime.GOARCH}
}
