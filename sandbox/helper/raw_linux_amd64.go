package helper

import (
	"encoding/binary"
	"syscall"
	"unsafe"

	"github.com/joshbot/joshbot/sandbox/internal/confine"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// The raw helper: with [confine.UnshareArg] as argv[2], Entry makes the
// namespaces and then, in the child that is the first process of the new
// PID namespace, calls rawMain instead of starting the Go runtime. rawMain says hello as the Go helper does,
// reads the same [confine.Request], does what the Go helper does for it,
// system call for system call (the private root, the hostname and
// loopback, Landlock, capabilities, no_new_privs, the seccomp filter),
// starts the command as the Go helper does, and supervises it: it
// forwards the signals the Go helper forwards, reaps every orphan, copies
// the command's output to its own, and once the command ends kills
// whatever it left behind, drains the output, reports the status on
// descriptor 4 and exits with it. A failed step writes "sandbox: <step>:
// <error>" to standard error and exits with status 126, so nothing runs
// less confined than asked. For a policy that allows the network it runs
// the proxy's forwarder in a process of its own, as the Go helper runs
// it on a thread of its own.
//
// No code of the Go runtime runs: no allocation, no goroutine, no
// defer, no map, no interface, nothing that can panic on good input.
// The functions run on the process's own stack with rawG as their g,
// whose stack guard of 0 no stack pointer is below, so no function
// asks for more stack. Every buffer is a global.

// rawG stands for the g Go code finds at -8(FS); rawTLS holds its
// address there (Entry sets the FS base to &rawTLS[1]).
var (
	//lint:ignore U1000 used by Entry, in assembly
	rawG [32]uintptr
	//lint:ignore U1000 used by Entry, in assembly
	rawTLS [2]uintptr
)

var (
	rawBuf  [confine.MaxRequest]byte
	rawFDs  [confine.MaxFDs]int32
	rawNFDs int
	// rawMsg is the msghdr of the hello and of the program's first read,
	// rawIov its iovec, rawCtl the control message.
	rawMsg [7]uint64
	rawIov [2]uint64
	rawCtl [8 + 4*confine.MaxFDs + 8]byte
	// rawSigs takes signalfd's records, 128 bytes apiece.
	rawSigs [16 * 128]byte
	rawPoll [2]uint64
	rawTime [2]int64
	rawWord [2]uint64
	rawText [64]byte
)

const (
	rawUserNS    = "/proc/self/ns/user\x00"
	rawHelloNS   = "opening its user namespace"
	rawHelloSend = "telling its parent it started"
	rawReceive   = "receiving the command"
	rawTooLong   = "helper given a request over what it takes"
	rawMalformed = "helper given a malformed request"
)

// rawBytes is s's bytes, read-only, without a copy.
//
//go:norace
//go:nocheckptr
func rawBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// rawSyscall6 makes system call nr and returns what it left in AX: the
// result, or -errno. In assembly.
func rawSyscall6(nr, a0, a1, a2, a3, a4, a5 uintptr) uintptr

// rawErr returns errno when r is a failed system call's result, else 0.
//
//go:norace
//go:nocheckptr
func rawErr(r uintptr) uintptr {
	if r > ^uintptr(4095) {
		return -r
	}
	return 0
}

//go:norace
//go:nocheckptr
func rawWrite(fd int, p []byte) {
	for len(p) > 0 {
		r := rawSyscall6(syscall.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)), 0, 0, 0)
		if e := rawErr(r); e != 0 {
			if e == uintptr(syscall.EINTR) {
				continue
			}
			return
		}
		p = p[r:]
	}
}

// rawCString is the NUL-terminated text at p.
//
//go:norace
//go:nocheckptr
func rawCString(p []byte) []byte {
	for i, c := range p {
		if c == 0 {
			return p[:i]
		}
	}
	return p
}

// rawFail writes "sandbox: what: the error" to standard error and exits
// with status 126.
//
//go:norace
//go:nocheckptr
func rawFail(what []byte, errno uintptr) {
	rawWrite(2, rawBytes("sandbox: "))
	rawWrite(2, rawCString(what))
	if errno != 0 {
		rawWrite(2, rawBytes(": "))
		if errno < 134 {
			rawWrite(2, rawBytes(syscall.Errno(errno).Error())) // the table's text: no allocation
		} else {
			rawWrite(2, rawBytes("errno "))
			n := len(rawText)
			for v := errno; v > 0 || n == len(rawText); v /= 10 {
				n--
				rawText[n] = byte('0' + v%10)
			}
			rawWrite(2, rawText[n:])
		}
	}
	rawWrite(2, rawBytes("\n"))
	rawExit(126)
}

//go:norace
//go:nocheckptr
func rawExit(code int) {
	for {
		rawSyscall6(syscall.SYS_EXIT_GROUP, uintptr(code), 0, 0, 0, 0, 0)
	}
}

// rawMain is called by Entry, in assembly; it never returns.
//
//lint:ignore U1000 called by Entry, in assembly
//go:norace
//go:nocheckptr
func rawMain() {
	// The signals it forwards, and SIGCHLD, wait in a signalfd from now
	// on, so one sent while the root is built reaches the command once it
	// runs, as the Go helper's signal.Notify has it; SIGPIPE is held too,
	// so a parent gone makes the copy fail rather than kill the helper.
	rawMask = rawSignalMask | 1<<(syscall.SIGPIPE-1)
	rawCall("blocking signals", nil, syscall.SYS_RT_SIGPROCMASK, unix.SIG_BLOCK, uintptr(unsafe.Pointer(&rawMask)), 0, 8, 0, 0)
	if pid := rawSyscall6(syscall.SYS_GETPID, 0, 0, 0, 0, 0, 0); pid != 1 {
		rawFail(rawBytes("the helper is not the first process of a new PID namespace"), 0)
	}
	rawHello()
	// What no request changes is done while the parent prepares it, or
	// while a helper started ahead waits for a command, as the Go helper
	// does.
	rawSystemRoot()
	rawDecode(rawReadRequest())
	rawConfine()
}

// rawHello sends, as [confine] hello does, one byte carrying this
// process's user namespace on descriptor 4.
//
//go:norace
//go:nocheckptr
func rawHello() {
	ns := rawSyscall6(syscall.SYS_OPENAT, atFDCWD, uintptr(unsafe.Pointer(unsafe.StringData(rawUserNS))), syscall.O_RDONLY|syscall.O_CLOEXEC, 0, 0, 0)
	if e := rawErr(ns); e != 0 {
		rawFail(rawBytes(rawHelloNS), e)
	}
	if e := rawErr(rawSendFD(confine.WarmFD, 1, ns)); e != 0 {
		rawFail(rawBytes(rawHelloSend), e)
	}
	rawSyscall6(syscall.SYS_CLOSE, ns, 0, 0, 0, 0, 0)
}

// rawSendFD sends the byte b, carrying the descriptor fd, on the socket
// sock, and returns what sendmsg returned.
//
//go:norace
//go:nocheckptr
func rawSendFD(sock uintptr, b byte, fd uintptr) uintptr {
	rawOne[0] = b
	rawIov[0], rawIov[1] = uint64(uintptr(unsafe.Pointer(&rawOne[0]))), 1
	// cmsghdr: length, level, type, then the descriptor.
	binary.NativeEndian.PutUint64(rawCtl[0:], 16+4)
	binary.NativeEndian.PutUint32(rawCtl[8:], syscall.SOL_SOCKET)
	binary.NativeEndian.PutUint32(rawCtl[12:], syscall.SCM_RIGHTS)
	binary.NativeEndian.PutUint32(rawCtl[16:], uint32(fd))
	rawMsg = [7]uint64{0, 0, uint64(uintptr(unsafe.Pointer(&rawIov[0]))), 1, uint64(uintptr(unsafe.Pointer(&rawCtl[0]))), 24, 0}
	for {
		r := rawSyscall6(syscall.SYS_SENDMSG, sock, uintptr(unsafe.Pointer(&rawMsg[0])), syscall.MSG_NOSIGNAL, 0, 0, 0)
		if rawErr(r) != uintptr(syscall.EINTR) {
			return r
		}
	}
}

// rawReadRequest reads the request and its descriptors from descriptor 4
// into rawBuf and rawFDs, and returns its length. The parent closing the
// socket first means it has no command: the helper exits.
//
//go:norace
//go:nocheckptr
func rawReadRequest() int {
	rawIov[0], rawIov[1] = uint64(uintptr(unsafe.Pointer(&rawBuf[0]))), 4
	rawMsg = [7]uint64{0, 0, uint64(uintptr(unsafe.Pointer(&rawIov[0]))), 1, uint64(uintptr(unsafe.Pointer(&rawCtl[0]))), uint64(len(rawCtl)), 0}
	var n uintptr
	for {
		n = rawSyscall6(syscall.SYS_RECVMSG, confine.WarmFD, uintptr(unsafe.Pointer(&rawMsg[0])), syscall.MSG_CMSG_CLOEXEC, 0, 0, 0)
		if e := rawErr(n); e == uintptr(syscall.EINTR) {
			continue
		} else if e != 0 {
			rawFail(rawBytes(rawReceive), e)
		}
		break
	}
	if n == 0 {
		rawExit(0)
	}
	// Every SCM_RIGHTS message's descriptors, in order.
	ctl := rawCtl[:rawMsg[5]]
	for len(ctl) >= 16 {
		l := int(binary.NativeEndian.Uint64(ctl))
		if l < 16 || l > len(ctl) {
			rawFail(rawBytes(rawMalformed), 0)
		}
		if binary.NativeEndian.Uint32(ctl[8:]) == syscall.SOL_SOCKET && binary.NativeEndian.Uint32(ctl[12:]) == syscall.SCM_RIGHTS {
			for i := 16; i+4 <= l; i += 4 {
				if rawNFDs == len(rawFDs) {
					rawFail(rawBytes(rawMalformed), 0)
				}
				rawFDs[rawNFDs] = int32(binary.NativeEndian.Uint32(ctl[i:]))
				rawNFDs++
			}
		}
		l = (l + 7) &^ 7
		if l >= len(ctl) {
			break
		}
		ctl = ctl[l:]
	}
	rawReadFull(int(n), 4)
	size := int(binary.NativeEndian.Uint32(rawBuf[:4]))
	if size > len(rawBuf) {
		rawFail(rawBytes(rawTooLong), 0)
	}
	rawReadFull(0, size)
	return size
}

// rawReadFull reads descriptor 4 into rawBuf[have:want].
//
//go:norace
//go:nocheckptr
func rawReadFull(have, want int) {
	for have < want {
		r := rawSyscall6(syscall.SYS_READ, confine.WarmFD, uintptr(unsafe.Pointer(&rawBuf[have])), uintptr(want-have), 0, 0, 0)
		if e := rawErr(r); e == uintptr(syscall.EINTR) {
			continue
		} else if e != 0 {
			rawFail(rawBytes(rawReceive), e)
		}
		if r == 0 {
			rawFail(rawBytes(rawReceive), uintptr(syscall.EPIPE))
		}
		have += int(r)
	}
}

// The request, decoded in place: strings are (offset, length) pairs into
// rawBuf, lists are runs of rawStrs.
type rawStr struct{ off, n int }

type rawList struct{ first, n int }

const rawMaxStrs = 1 << 16

var (
	rawStrs  [rawMaxStrs]rawStr
	rawNStrs int
	// rawMounts are the spec's mounts: path, read-only, descriptor.
	rawMounts [256]struct {
		path rawStr
		ro   bool
		fd   int
	}
	rawNMounts int
	// rawArea holds NUL-terminated copies of the command's arguments and
	// environment, rawVec the vectors execve takes.
	rawArea [confine.MaxRequest / 4]byte
	rawVec  [2 * (rawMaxStrs + 1)]uintptr
	// rawPaths are scratch space for the paths of one system call.
	rawPaths [3][4096]byte
	// rawCommand is the command's path, rawDir its directory, rawLink a
	// symbolic link's target.
	rawCommand, rawDir, rawLink [4096]byte
	rawAttr                     [8]uint64
)

// rawReq is the decoder's state: the next byte, and the end.
var rawReq struct{ at, end int }

//go:norace
//go:nocheckptr
func rawUvarint() int {
	var v, shift uint64
	for rawReq.at < rawReq.end && shift < 64 {
		c := rawBuf[rawReq.at]
		rawReq.at++
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			if v > 1<<30 {
				break
			}
			return int(v)
		}
		shift += 7
	}
	rawFail(rawBytes(rawMalformed), 0)
	return 0
}

//go:norace
//go:nocheckptr
func rawString() rawStr {
	n := rawUvarint()
	if n > rawReq.end-rawReq.at {
		rawFail(rawBytes(rawMalformed), 0)
	}
	s := rawStr{rawReq.at, n}
	rawReq.at += n
	return s
}

//go:norace
//go:nocheckptr
func rawBool() bool {
	if rawReq.at >= rawReq.end || rawBuf[rawReq.at] > 1 {
		rawFail(rawBytes(rawMalformed), 0)
	}
	rawReq.at++
	return rawBuf[rawReq.at-1] == 1
}

//go:norace
//go:nocheckptr
func rawStrings() rawList {
	n := rawUvarint()
	if n > rawReq.end-rawReq.at || n > rawMaxStrs-rawNStrs {
		rawFail(rawBytes(rawMalformed), 0)
	}
	l := rawList{rawNStrs, n}
	for range n {
		rawStrs[rawNStrs] = rawString()
		rawNStrs++
	}
	return l
}

//go:norace
//go:nocheckptr
func (s rawStr) bytes() []byte { return rawBuf[s.off : s.off+s.n] }

// rawSpec is the decoded request.
var rawSpec struct {
	dir, bpf          rawStr
	rw, ro, argv, env rawList
	network           bool
	// proxy is the descriptor of the parent's network proxy, or -1.
	proxy int
}

// rawDecode reads the request in rawBuf[:size], as DecodeRequest does.
//
//go:norace
//go:nocheckptr
func rawDecode(size int) {
	const magic = "jbr\x01"
	if size < len(magic) || string(rawBuf[:len(magic)]) != magic {
		rawFail(rawBytes(rawMalformed), 0)
	}
	rawReq.at, rawReq.end = len(magic), size
	rawSpec.dir = rawString()
	rawSpec.network = rawBool()
	rawSpec.proxy = -1
	if fd := rawUvarint(); fd > 0 {
		// Numbered as the mounts' descriptors are (see below).
		if fd < 4 || fd-4 >= rawNFDs {
			rawFail(rawBytes(rawMalformed), 0)
		}
		rawSpec.proxy = int(rawFDs[fd-4])
	}
	rawUvarint() // HelperEnv: a helper started ahead has none
	rawStrings() // Env: likewise
	rawSpec.bpf = rawString()
	rawSpec.rw = rawStrings()
	rawSpec.ro = rawStrings()
	n := rawUvarint()
	if n > len(rawMounts) {
		rawFail(rawBytes(rawMalformed), 0)
	}
	for i := range n {
		m := &rawMounts[i]
		m.path, m.ro, m.fd = rawString(), rawBool(), rawUvarint()
		if m.fd > 0 {
			// Numbered as a helper started with them would have them:
			// the first sent is 4.
			if m.fd < 4 || m.fd-4 >= rawNFDs {
				rawFail(rawBytes(rawMalformed), 0)
			}
			m.fd = int(rawFDs[m.fd-4])
		}
	}
	rawNMounts = n
	rawSpec.argv = rawStrings()
	rawSpec.env = rawStrings()
	if rawReq.at != rawReq.end || rawSpec.argv.n == 0 || rawSpec.bpf.n == 0 || rawSpec.bpf.n%8 != 0 || rawSpec.bpf.n/8 > 4096 {
		rawFail(rawBytes(rawMalformed), 0)
	}
}

// rawPath writes prefix, then s, then a NUL into rawPaths[i] and returns
// the path without the NUL.
//
//go:norace
//go:nocheckptr
func rawPath(i int, prefix string, s []byte) []byte {
	p := &rawPaths[i]
	if len(prefix)+len(s)+1 > len(p) {
		rawFail(rawBytes(rawTooLong), 0)
	}
	n := copy(p[:], prefix)
	n += copy(p[n:], s)
	p[n] = 0
	return p[:n]
}

//go:norace
//go:nocheckptr
func rawPtr(p []byte) uintptr { return uintptr(unsafe.Pointer(&p[0])) }

//go:norace
//go:nocheckptr
func rawStrPtr(s string) uintptr { return uintptr(unsafe.Pointer(unsafe.StringData(s))) }

// rawCall makes a system call whose failure fails the helper, saying
// what and, when path is set, on which path.
//
//go:norace
//go:nocheckptr
func rawCall(what string, path []byte, nr, a0, a1, a2, a3, a4, a5 uintptr) uintptr {
	r := rawSyscall6(nr, a0, a1, a2, a3, a4, a5)
	if e := rawErr(r); e != 0 {
		rawFail2(what, path, e)
	}
	return r
}

// rawFail2 is rawFail for "what path".
//
//go:norace
//go:nocheckptr
func rawFail2(what string, path []byte, e uintptr) {
	if len(path) == 0 {
		rawFail(rawBytes(what), e)
	}
	n := copy(rawPaths[2][:], what)
	n += copy(rawPaths[2][n:], " ")
	n += copy(rawPaths[2][n:], path)
	rawFail(rawPaths[2][:n], e)
}

const atFDCWD = ^uintptr(99) // AT_FDCWD, -100

// rawMkdirAll makes the directory path and those on the way to it, with
// mode 0755, as os.MkdirAll; path is NUL-terminated in a scratch buffer,
// which it leaves as it was.
//
//go:norace
//go:nocheckptr
func rawMkdirAll(path []byte) {
	buf := path[:len(path)+1] // the NUL's place, within the scratch buffer
	for i := 1; i <= len(path); i++ {
		if i < len(path) && path[i] != '/' {
			continue
		}
		c := buf[i]
		buf[i] = 0
		r := rawSyscall6(syscall.SYS_MKDIRAT, atFDCWD, rawPtr(path), 0o755, 0, 0, 0)
		buf[i] = c
		if e := rawErr(r); e != 0 && e != uintptr(syscall.EEXIST) {
			rawFail2("private root: mkdir", path[:i], e)
		}
	}
}

// rawTmpfs mounts a tmpfs with opts (NUL-terminated) on dir, made first.
//
//go:norace
//go:nocheckptr
func rawTmpfs(dir, opts string) {
	p := rawPath(0, dir, nil)
	rawMkdirAll(p)
	rawCall("private root: mounting a tmpfs on", p, syscall.SYS_MOUNT, rawStrPtr("tmpfs\x00"), rawPtr(p), rawStrPtr("tmpfs\x00"), syscall.MS_NOSUID|syscall.MS_NODEV, rawStrPtr(opts), 0)
}

// rawSetattr sets attr on the mount at path (dirfd AT_FDCWD) or on the
// detached tree dirfd (path empty).
//
//go:norace
//go:nocheckptr
func rawSetattr(dirfd uintptr, path []byte, flags uintptr, attr uint64) {
	rawAttr = [8]uint64{attr}
	p := rawStrPtr("\x00")
	if len(path) > 0 {
		p = rawPtr(path)
	}
	rawCall("private root: mount_setattr", path, unix.SYS_MOUNT_SETATTR, dirfd, p, flags, uintptr(unsafe.Pointer(&rawAttr[0])), unsafe.Sizeof(unix.MountAttr{}), 0)
}

// rawOpenNoSymlinks opens the directory at path as openNoSymlinks does.
//
//go:norace
//go:nocheckptr
func rawOpenNoSymlinks(path []byte) uintptr {
	how := unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS}
	return rawCall("private root: opening", path, unix.SYS_OPENAT2, atFDCWD, rawPtr(path), uintptr(unsafe.Pointer(&how)), unix.SizeofOpenHow, 0, 0)
}

// rawSystemRoot is setupNamespaces and buildSystemRoot.
//
//go:norace
//go:nocheckptr
func rawSystemRoot() {
	rawCall("hostname", nil, syscall.SYS_SETHOSTNAME, rawStrPtr("sandbox"), 7, 0, 0, 0, 0)
	sock := rawCall("loopback", nil, syscall.SYS_SOCKET, syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0, 0, 0, 0)
	var ifr [40]byte
	copy(ifr[:], "lo")
	rawCall("loopback", nil, syscall.SYS_IOCTL, sock, syscall.SIOCGIFFLAGS, uintptr(unsafe.Pointer(&ifr[0])), 0, 0, 0)
	binary.NativeEndian.PutUint16(ifr[16:], binary.NativeEndian.Uint16(ifr[16:])|syscall.IFF_UP)
	rawCall("loopback", nil, syscall.SYS_IOCTL, sock, syscall.SIOCSIFFLAGS, uintptr(unsafe.Pointer(&ifr[0])), 0, 0, 0)
	rawSyscall6(syscall.SYS_CLOSE, sock, 0, 0, 0, 0, 0)

	rawCall("private root: making mounts private", nil, syscall.SYS_MOUNT, rawStrPtr("\x00"), rawStrPtr("/\x00"), rawStrPtr("\x00"), syscall.MS_REC|syscall.MS_PRIVATE, 0, 0)
	rawTmpfs("/tmp", "mode=0700\x00")
	rawCall("private root: chdir /tmp", nil, syscall.SYS_CHDIR, rawStrPtr("/tmp\x00"), 0, 0, 0, 0, 0)
	rawCall("private root: mkdir newroot", nil, syscall.SYS_MKDIRAT, atFDCWD, rawStrPtr("newroot\x00"), 0o755, 0, 0, 0)
	rawCall("private root: mkdir oldroot", nil, syscall.SYS_MKDIRAT, atFDCWD, rawStrPtr("oldroot\x00"), 0o755, 0, 0, 0)
	rawCall("private root: pivot_root", nil, syscall.SYS_PIVOT_ROOT, rawStrPtr(".\x00"), rawStrPtr("oldroot\x00"), 0, 0, 0, 0)
	rawCall("private root: chdir /", nil, syscall.SYS_CHDIR, rawStrPtr("/\x00"), 0, 0, 0, 0, 0)
	rawTmpfs("/newroot", "mode=0755\x00")
	const roAttr = unix.MOUNT_ATTR_RDONLY | unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV
	var st syscall.Stat_t
	for _, d := range confine.SystemDirs {
		src := rawPath(1, "/oldroot", rawBytes(d))
		r := rawSyscall6(syscall.SYS_NEWFSTATAT, atFDCWD, rawPtr(src), uintptr(unsafe.Pointer(&st)), unix.AT_SYMLINK_NOFOLLOW, 0, 0)
		if e := rawErr(r); e == uintptr(syscall.ENOENT) {
			continue
		} else if e != 0 {
			rawFail2("private root: lstat", src, e)
		}
		dst := rawPath(0, "/newroot", rawBytes(d))
		switch st.Mode & syscall.S_IFMT {
		case syscall.S_IFLNK:
			// /bin -> usr/bin on merged-/usr systems: the same link.
			n := rawCall("private root: readlink", src, syscall.SYS_READLINKAT, atFDCWD, rawPtr(src), uintptr(unsafe.Pointer(&rawLink[0])), uintptr(len(rawLink)-1), 0, 0)
			rawLink[n] = 0
			slash := len(dst)
			for slash > 0 && dst[slash-1] != '/' {
				slash--
			}
			if slash > 1 {
				dst[slash-1] = 0
				rawMkdirAll(dst[:slash-1])
				dst[slash-1] = '/'
			}
			rawCall("private root: symlink", dst, syscall.SYS_SYMLINKAT, uintptr(unsafe.Pointer(&rawLink[0])), atFDCWD, rawPtr(dst), 0, 0, 0)
			continue
		case syscall.S_IFDIR:
		default:
			continue
		}
		rawMkdirAll(dst)
		rawCall("private root: binding", src, syscall.SYS_MOUNT, rawPtr(src), rawPtr(dst), 0, syscall.MS_BIND|syscall.MS_REC, 0, 0)
		rawSetattr(atFDCWD, dst, unix.AT_RECURSIVE, roAttr)
	}
	rawTmpfs("/newroot/tmp", "mode=1777\x00")
	// buildDev
	rawTmpfs("/newroot/dev", "mode=0755\x00")
	for _, n := range confine.DevFiles {
		src := rawPath(1, "/oldroot/dev/", rawBytes(n))
		if rawErr(rawSyscall6(syscall.SYS_NEWFSTATAT, atFDCWD, rawPtr(src), uintptr(unsafe.Pointer(&st)), 0, 0, 0)) != 0 {
			continue
		}
		dst := rawPath(0, "/newroot/dev/", rawBytes(n))
		f := rawCall("private root: /dev: creating", dst, syscall.SYS_OPENAT, atFDCWD, rawPtr(dst), syscall.O_CREAT|syscall.O_WRONLY|syscall.O_CLOEXEC, 0o666, 0, 0)
		rawSyscall6(syscall.SYS_CLOSE, f, 0, 0, 0, 0, 0)
		rawCall("private root: /dev: binding", src, syscall.SYS_MOUNT, rawPtr(src), rawPtr(dst), 0, syscall.MS_BIND, 0, 0)
	}
	for _, l := range [...][2]string{{"/newroot/dev/fd\x00", "/proc/self/fd\x00"}, {"/newroot/dev/stdin\x00", "/proc/self/fd/0\x00"}, {"/newroot/dev/stdout\x00", "/proc/self/fd/1\x00"}, {"/newroot/dev/stderr\x00", "/proc/self/fd/2\x00"}} {
		rawCall("private root: /dev: symlink", rawBytes(l[0]), syscall.SYS_SYMLINKAT, rawStrPtr(l[1]), atFDCWD, rawStrPtr(l[0]), 0, 0, 0)
	}
	// 0777, as os.Mkdir makes it from 0o1777 (the sticky bit of a Go
	// FileMode is another bit); the tmpfs over it has mode 1777.
	rawCall("private root: /dev: mkdir shm", nil, syscall.SYS_MKDIRAT, atFDCWD, rawStrPtr("/newroot/dev/shm\x00"), 0o777, 0, 0, 0)
	rawTmpfs("/newroot/dev/shm", "mode=1777\x00")
	rawSetattr(atFDCWD, rawPath(0, "/newroot/dev", nil), 0, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID)
	rawCall("private root: mkdir /proc", nil, syscall.SYS_MKDIRAT, atFDCWD, rawStrPtr("/newroot/proc\x00"), 0o555, 0, 0, 0)
	rawCall("private root: mounting /proc", nil, syscall.SYS_MOUNT, rawStrPtr("proc\x00"), rawStrPtr("/newroot/proc\x00"), rawStrPtr("proc\x00"), syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, 0, 0)
}

// rawFinishRoot is finishRoot.
//
//go:norace
//go:nocheckptr
func rawFinishRoot() {
	for i := range rawNMounts {
		m := &rawMounts[i]
		dst := rawPath(0, "/newroot", m.path.bytes())
		rawMkdirAll(dst)
		target := rawOpenNoSymlinks(dst)
		tree := uintptr(m.fd)
		if m.fd == 0 {
			src := rawOpenNoSymlinks(rawPath(1, "/oldroot", m.path.bytes()))
			tree = rawCall("private root: open_tree", m.path.bytes(), unix.SYS_OPEN_TREE, src, rawStrPtr("\x00"), unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE|unix.AT_EMPTY_PATH, 0, 0, 0)
			rawSyscall6(syscall.SYS_CLOSE, src, 0, 0, 0, 0, 0)
			attr := uint64(unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV)
			if m.ro {
				attr |= unix.MOUNT_ATTR_RDONLY
			}
			rawSetattr(tree, nil, unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, attr)
		}
		rawCall("private root: move_mount", m.path.bytes(), unix.SYS_MOVE_MOUNT, tree, rawStrPtr("\x00"), target, rawStrPtr("\x00"), unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH, 0)
		rawSyscall6(syscall.SYS_CLOSE, target, 0, 0, 0, 0, 0)
		rawSyscall6(syscall.SYS_CLOSE, tree, 0, 0, 0, 0, 0)
	}
	rawSetattr(atFDCWD, rawPath(0, "/newroot", nil), 0, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV)
	rawCall("private root: chdir /newroot", nil, syscall.SYS_CHDIR, rawStrPtr("/newroot\x00"), 0, 0, 0, 0, 0)
	rawCall("private root: pivot_root", nil, syscall.SYS_PIVOT_ROOT, rawStrPtr(".\x00"), rawStrPtr(".\x00"), 0, 0, 0, 0)
	rawCall("private root: detaching the old root", nil, syscall.SYS_UMOUNT2, rawStrPtr(".\x00"), syscall.MNT_DETACH, 0, 0, 0, 0)
	rawCall("private root: chdir /", nil, syscall.SYS_CHDIR, rawStrPtr("/\x00"), 0, 0, 0, 0, 0)
}

// rawLandlockABIs are go-landlock's configurations for each Landlock
// ABI: the filesystem and network rights handled, and the scopes
// (TestRawLandlockABIs compares them with go-landlock's).
var rawLandlockABIs = [...][3]uint64{
	{}, {1<<13 - 1, 0, 0}, {1<<14 - 1, 0, 0}, {1<<15 - 1, 0, 0}, {1<<15 - 1, 1<<2 - 1, 0},
	{1<<16 - 1, 1<<2 - 1, 0}, {1<<16 - 1, 1<<2 - 1, 1<<2 - 1}, {1<<16 - 1, 1<<2 - 1, 1<<2 - 1},
	{1<<16 - 1, 1<<2 - 1, 1<<2 - 1}, {1<<17 - 1, 1<<2 - 1, 1<<2 - 1}, {1<<17 - 1, 1<<4 - 1, 1<<2 - 1},
	{1<<17 - 1, 1<<4 - 1, 1<<2 - 1},
}

// Rights as go-landlock's RODirs, RWDirs and RWFiles grant them.
const (
	llRead  = llsys.AccessFSExecute | llsys.AccessFSReadFile | llsys.AccessFSReadDir
	llWrite = llsys.AccessFSWriteFile | llsys.AccessFSRemoveDir | llsys.AccessFSRemoveFile | llsys.AccessFSMakeChar | llsys.AccessFSMakeDir | llsys.AccessFSMakeReg | llsys.AccessFSMakeSock | llsys.AccessFSMakeFifo | llsys.AccessFSMakeBlock | llsys.AccessFSMakeSym | llsys.AccessFSTruncate
	llFile  = llsys.AccessFSExecute | llsys.AccessFSWriteFile | llsys.AccessFSTruncate | llsys.AccessFSReadFile
	llRefer = llsys.AccessFSRefer
	llRules = unix.LANDLOCK_CREATE_RULESET_VERSION
)

// rawRuleset is struct landlock_ruleset_attr as go-landlock passes it.
var (
	rawRuleset [6]uint64
	rawBeneath [2]uint64
)

// rawLandlock is applyLandlock.
//
//go:norace
//go:nocheckptr
func rawLandlock() {
	abi := int(rawSyscall6(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, llRules, 0, 0, 0))
	if abi < 1 || abi > 1<<20 {
		rawFail(rawBytes("landlock unavailable in the helper"), 0)
	}
	if abi >= len(rawLandlockABIs) {
		abi = len(rawLandlockABIs) - 1
	}
	cfg := rawLandlockABIs[abi]
	if rawSpec.network {
		// The network namespace and the proxy confine connections; the
		// command must reach the proxy on loopback.
		cfg[1] = 0
	}
	rawRuleset = [6]uint64{cfg[0], cfg[1], cfg[2]}
	rs := rawCall("applying landlock: landlock_create_ruleset", nil, unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&rawRuleset[0])), unsafe.Sizeof(rawRuleset), 0, 0, 0, 0)
	rw := uint64(llRead | llWrite)
	if abi >= 2 {
		rw |= llRefer
	}
	for i := range rawSpec.ro.n {
		rawRule(rs, rawStrs[rawSpec.ro.first+i].bytes(), llRead&cfg[0])
	}
	for i := range rawSpec.rw.n {
		rawRule(rs, rawStrs[rawSpec.rw.first+i].bytes(), rw&cfg[0])
	}
	for _, n := range confine.DevFiles {
		rawRule(rs, rawPath(1, "/dev/", rawBytes(n)), (llRead|llWrite)&llFile&cfg[0])
	}
	rawCall("no_new_privs", nil, syscall.SYS_PRCTL, unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0, 0)
	rawCall("applying landlock: landlock_restrict_self", nil, unix.SYS_LANDLOCK_RESTRICT_SELF, rs, 0, 0, 0, 0, 0)
	rawSyscall6(syscall.SYS_CLOSE, rs, 0, 0, 0, 0, 0)
}

// rawRule adds a path-beneath rule for path, unless it is missing (the
// rules ignore missing paths) or grants nothing.
//
//go:norace
//go:nocheckptr
func rawRule(rs uintptr, path []byte, access uint64) {
	if access == 0 {
		return
	}
	p := rawPath(0, "", path)
	fd := rawSyscall6(syscall.SYS_OPENAT, atFDCWD, rawPtr(p), unix.O_PATH|unix.O_CLOEXEC, 0, 0, 0)
	if e := rawErr(fd); e == uintptr(syscall.ENOENT) {
		return
	} else if e != 0 {
		rawFail2("applying landlock: open", p, e)
	}
	rawBeneath = [2]uint64{access, uint64(fd)}
	rawCall("applying landlock: landlock_add_rule", p, unix.SYS_LANDLOCK_ADD_RULE, rs, unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&rawBeneath[0])), 0, 0, 0)
	rawSyscall6(syscall.SYS_CLOSE, fd, 0, 0, 0, 0, 0)
}

// rawLookPath finds the command as lookPath does, into rawPaths[1].
//
//go:norace
//go:nocheckptr
func rawLookPath(name []byte) []byte {
	for i := range name {
		if name[i] == '/' {
			return rawPath(1, "", name)
		}
	}
	// The last PATH= of the environment.
	var path []byte
	for i := range rawSpec.env.n {
		e := rawStrs[rawSpec.env.first+i].bytes()
		if len(e) >= 5 && string(e[:5]) == "PATH=" {
			path = e[5:]
		}
	}
	var st syscall.Stat_t
	for {
		end := 0
		for end < len(path) && path[end] != ':' {
			end++
		}
		dir := path[:end]
		if len(dir) == 0 {
			dir = rawBytes(".")
		}
		p := rawPath(1, "", dir)
		n := len(p)
		if n+1+len(name)+1 <= len(rawPaths[1]) {
			rawPaths[1][n] = '/'
			n++
			n += copy(rawPaths[1][n:], name)
			rawPaths[1][n] = 0
			if rawErr(rawSyscall6(syscall.SYS_NEWFSTATAT, atFDCWD, uintptr(unsafe.Pointer(&rawPaths[1][0])), uintptr(unsafe.Pointer(&st)), 0, 0, 0)) == 0 &&
				st.Mode&syscall.S_IFMT == syscall.S_IFREG && st.Mode&0o111 != 0 {
				return rawPaths[1][:n]
			}
		}
		if end == len(path) {
			break
		}
		path = path[end+1:]
	}
	n := copy(rawPaths[2][:], name)
	n += copy(rawPaths[2][n:], ": executable file not found in $PATH")
	rawFail(rawPaths[2][:n], 0)
	return nil
}

// rawVector writes the NUL-terminated copies of list's strings into
// rawArea from *at, and their addresses, then NULL, into rawVec from v;
// it returns the vector's address. With a proxy port, the list is an
// environment whose proxy variables are replaced, as the Go helper's
// setEnv replaces them: the list's own are left out, and each is added
// at the end, naming the forwarder on that port (NO_PROXY empty).
//
//go:norace
//go:nocheckptr
func rawVector(list rawList, at *int, v int, port int) uintptr {
	start := v
	add := func(s []byte, more []byte) {
		if len(s)+len(more)+1 > len(rawArea)-*at || v+2 > len(rawVec) {
			rawFail(rawBytes(rawTooLong), 0)
		}
		n := copy(rawArea[*at:], s)
		n += copy(rawArea[*at+n:], more)
		rawArea[*at+n] = 0
		rawVec[v] = uintptr(unsafe.Pointer(&rawArea[*at]))
		*at += n + 1
		v++
	}
	for i := range list.n {
		s := rawStrs[list.first+i].bytes()
		if port > 0 && rawProxyName(s) {
			continue
		}
		add(s, nil)
	}
	if port > 0 {
		n := copy(rawText[:], "http://127.0.0.1:")
		d := n
		for p := port; p > 0; p /= 10 {
			d++
		}
		for p, i := port, d-1; i >= n; p, i = p/10, i-1 {
			rawText[i] = byte('0' + p%10)
		}
		for _, name := range rawProxyVars {
			if name[0] == 'N' || name[0] == 'n' {
				add(rawBytes(name), nil)
			} else {
				add(rawBytes(name), rawText[:d])
			}
		}
	}
	rawVec[v] = 0
	return uintptr(unsafe.Pointer(&rawVec[start]))
}

// rawProxyVars are the variables the Go helper sets for the proxy, in its
// order, with the "=".
var rawProxyVars = [...]string{"HTTP_PROXY=", "HTTPS_PROXY=", "http_proxy=", "https_proxy=", "ALL_PROXY=", "all_proxy=", "NO_PROXY=", "no_proxy="}

// rawProxyName reports whether the environment entry kv sets one of
// rawProxyVars.
//
//go:norace
//go:nocheckptr
func rawProxyName(kv []byte) bool {
	for _, name := range rawProxyVars {
		if len(kv) >= len(name) && string(kv[:len(name)]) == name {
			return true
		}
	}
	return false
}

// rawSockaddr is a struct sockaddr_in: AF_INET, the port, 127.0.0.1.
var (
	rawSockaddr [16]byte
	rawAddrLen  uint32
	rawOne      [1]byte
)

// rawForwarder is startForwarder: it listens on 127.0.0.1 inside the
// command's network namespace, forks a process that hands each
// connection to the parent's proxy over proxy, and returns the port.
//
//go:norace
//go:nocheckptr
func rawForwarder(proxy uintptr) int {
	ln := rawCall("network proxy: socket", nil, syscall.SYS_SOCKET, syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0, 0, 0, 0)
	rawSockaddr = [16]byte{syscall.AF_INET, 0, 0, 0, 127, 0, 0, 1}
	rawCall("network proxy: bind", nil, syscall.SYS_BIND, ln, uintptr(unsafe.Pointer(&rawSockaddr[0])), 16, 0, 0, 0)
	rawCall("network proxy: listen", nil, syscall.SYS_LISTEN, ln, 64, 0, 0, 0, 0)
	rawAddrLen = 16
	rawCall("network proxy: getsockname", nil, syscall.SYS_GETSOCKNAME, ln, uintptr(unsafe.Pointer(&rawSockaddr[0])), uintptr(unsafe.Pointer(&rawAddrLen)), 0, 0, 0)
	port := int(rawSockaddr[2])<<8 | int(rawSockaddr[3])
	pid := rawCall("network proxy: fork", nil, syscall.SYS_CLONE, uintptr(syscall.SIGCHLD), 0, 0, 0, 0, 0)
	if pid == 0 {
		// The forwarder lives until the command ends, when the helper
		// kills what is left in its namespace.
		for {
			c := rawSyscall6(syscall.SYS_ACCEPT4, ln, 0, 0, syscall.SOCK_CLOEXEC, 0, 0)
			if e := rawErr(c); e == uintptr(syscall.EINTR) || e == uintptr(syscall.ECONNABORTED) {
				continue
			} else if e != 0 {
				rawExit(0)
			}
			rawSendFD(proxy, 0, c)
			rawSyscall6(syscall.SYS_CLOSE, c, 0, 0, 0, 0, 0)
		}
	}
	rawSyscall6(syscall.SYS_CLOSE, ln, 0, 0, 0, 0, 0)
	return port
}

// rawSignalMask is the signals the Go helper forwards, and SIGCHLD.
const rawSignalMask = 1<<(syscall.SIGTERM-1) | 1<<(syscall.SIGINT-1) | 1<<(syscall.SIGHUP-1) | 1<<(syscall.SIGQUIT-1) |
	1<<(syscall.SIGUSR1-1) | 1<<(syscall.SIGUSR2-1) | 1<<(syscall.SIGCHLD-1)

var (
	rawMask  uint64
	rawPipe  [2]int32
	rawFprog struct {
		n   uint16
		_   [6]byte
		ptr uintptr
	}
)

// rawConfine is runConfined: it finishes the root, confines this process
// as the Go helper confines its thread, starts the command and
// supervises it.
//
//go:norace
//go:nocheckptr
func rawConfine() {
	// Nothing the parent passed may reach the command.
	rawCall("close_range", nil, unix.SYS_CLOSE_RANGE, 3, ^uintptr(0), unix.CLOSE_RANGE_CLOEXEC, 0, 0, 0)
	rawFinishRoot()
	port := 0
	if rawSpec.proxy >= 0 {
		port = rawForwarder(uintptr(rawSpec.proxy))
	}
	found := rawLookPath(rawStrs[rawSpec.argv.first].bytes())
	if len(found)+1 > len(rawCommand) {
		rawFail(rawBytes(rawTooLong), 0)
	}
	path := rawCommand[:copy(rawCommand[:], found)]
	rawCommand[len(path)] = 0
	rawLandlock()
	for c := uintptr(0); c < 64; c++ {
		if e := rawErr(rawSyscall6(syscall.SYS_PRCTL, unix.PR_CAPBSET_DROP, c, 0, 0, 0, 0)); e != 0 && e != uintptr(syscall.EINVAL) {
			rawFail(rawBytes("dropping a capability"), e)
		}
	}
	rawCall("clearing ambient capabilities", nil, syscall.SYS_PRCTL, unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0, 0)
	rawCall("setting securebits", nil, syscall.SYS_PRCTL, unix.PR_SET_SECUREBITS, 1<<0|1<<1|1<<2|1<<3|1<<5|1<<6|1<<7, 0, 0, 0, 0)
	rawCall("no_new_privs", nil, syscall.SYS_PRCTL, unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0, 0)
	rawFprog.n, rawFprog.ptr = uint16(rawSpec.bpf.n/8), uintptr(unsafe.Pointer(&rawBuf[rawSpec.bpf.off]))
	rawCall("installing the seccomp filter", nil, syscall.SYS_PRCTL, unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&rawFprog)), 0, 0, 0)

	// The signals rawMain blocked come through a signalfd.
	rawMask = rawSignalMask
	sigfd := rawCall("signalfd", nil, syscall.SYS_SIGNALFD4, ^uintptr(0), uintptr(unsafe.Pointer(&rawMask)), 8, unix.SFD_CLOEXEC|unix.SFD_NONBLOCK, 0, 0)
	rawCall("standard streams: pipe2", nil, syscall.SYS_PIPE2, uintptr(unsafe.Pointer(&rawPipe[0])), syscall.O_CLOEXEC, 0, 0, 0, 0)
	at := 0
	argv := rawVector(rawSpec.argv, &at, 0, 0)
	envp := rawVector(rawSpec.env, &at, rawSpec.argv.n+1, port)
	var dir []byte
	if rawSpec.dir.n > 0 {
		if rawSpec.dir.n+1 > len(rawDir) {
			rawFail(rawBytes(rawTooLong), 0)
		}
		dir = rawDir[:copy(rawDir[:], rawSpec.dir.bytes())]
		rawDir[len(dir)] = 0
	}
	pid := rawCall("starting the command", path, syscall.SYS_CLONE, uintptr(syscall.SIGCHLD), 0, 0, 0, 0, 0)
	if pid == 0 {
		// The command: its own session, no controlling terminal, one
		// pipe for both output streams, as the Go helper starts it.
		rawMask = 0
		rawSyscall6(syscall.SYS_RT_SIGPROCMASK, unix.SIG_SETMASK, uintptr(unsafe.Pointer(&rawMask)), 0, 8, 0, 0)
		rawCall("setsid", nil, syscall.SYS_SETSID, 0, 0, 0, 0, 0, 0)
		rawCall("standard streams", nil, syscall.SYS_DUP3, uintptr(rawPipe[1]), 1, 0, 0, 0, 0)
		rawCall("standard streams", nil, syscall.SYS_DUP3, uintptr(rawPipe[1]), 2, 0, 0, 0, 0)
		if dir != nil {
			rawCall("chdir", dir, syscall.SYS_CHDIR, rawPtr(dir), 0, 0, 0, 0, 0)
		}
		e := rawErr(rawSyscall6(syscall.SYS_EXECVE, rawPtr(path), argv, envp, 0, 0, 0))
		rawFail(path, e)
	}
	rawSyscall6(syscall.SYS_CLOSE, uintptr(rawPipe[1]), 0, 0, 0, 0, 0)
	rawSupervise(int(rawPipe[0]), int(sigfd), int(pid))
}

// rawNow is CLOCK_MONOTONIC in nanoseconds.
//
//go:norace
//go:nocheckptr
func rawNow() int64 {
	rawSyscall6(syscall.SYS_CLOCK_GETTIME, 1, uintptr(unsafe.Pointer(&rawTime[0])), 0, 0, 0, 0)
	return rawTime[0]*1e9 + rawTime[1]
}

// rawDrainLimit is how long, after the command ended and what it left
// behind was killed, its output is still copied.
const rawDrainLimit = 2e9

// rawSupervise runs until the command (pid) ends and its output (the
// pipe's read end, out) is copied to standard output, forwarding the
// signals sigfd reads to the command; then it reports the status and
// exits with it.
//
//go:norace
//go:nocheckptr
func rawSupervise(out, sigfd, pid int) {
	const pollIn, pollErr, pollHup = 0x1, 0x8, 0x10
	// struct pollfd: fd, events, revents; two of them.
	rawPoll[0] = uint64(uint32(sigfd)) | pollIn<<32
	rawPoll[1] = uint64(uint32(out)) | pollIn<<32
	code, ended, open := 0, false, true
	var deadline int64
	for !ended || open {
		timeout := -1
		if ended {
			left := deadline - rawNow()
			if left <= 0 {
				break
			}
			timeout = int(left/1e6) + 1
		}
		n := rawSyscall6(syscall.SYS_POLL, uintptr(unsafe.Pointer(&rawPoll[0])), 2, uintptr(timeout), 0, 0, 0)
		if e := rawErr(n); e != 0 {
			if e == uintptr(syscall.EINTR) {
				continue
			}
			break
		}
		if rawPoll[0]>>48&pollIn != 0 {
			r := rawSyscall6(syscall.SYS_READ, uintptr(sigfd), uintptr(unsafe.Pointer(&rawSigs[0])), uintptr(len(rawSigs)), 0, 0, 0)
			for at := uintptr(0); rawErr(r) == 0 && at+128 <= r; at += 128 {
				sig := binary.NativeEndian.Uint32(rawSigs[at:])
				if sig != uint32(syscall.SIGCHLD) {
					if !ended {
						rawSyscall6(syscall.SYS_KILL, uintptr(pid), uintptr(sig), 0, 0, 0, 0)
					}
					continue
				}
				// Reap every child that ended: the command, and the
				// orphans it left, which are this process's now.
				for {
					w := rawSyscall6(syscall.SYS_WAIT4, ^uintptr(0), uintptr(unsafe.Pointer(&rawWord[0])), syscall.WNOHANG, 0, 0, 0)
					if rawErr(w) != 0 || w == 0 {
						break
					}
					if int(w) == pid && !ended {
						ws := syscall.WaitStatus(uint32(rawWord[0]))
						code = ws.ExitStatus()
						if ws.Signaled() {
							code = 128 + int(ws.Signal())
						}
						ended = true
						// Whatever the command left behind dies now, so
						// its output reaches its end.
						rawSyscall6(syscall.SYS_KILL, ^uintptr(0), uintptr(syscall.SIGKILL), 0, 0, 0, 0)
						deadline = rawNow() + rawDrainLimit
					}
				}
			}
		}
		if open && rawPoll[1]>>48&(pollIn|pollErr|pollHup) != 0 {
			r := rawSyscall6(syscall.SYS_SPLICE, uintptr(out), 0, 1, 0, 1<<16, 0)
			if e := rawErr(r); r == 0 || (e != 0 && e != uintptr(syscall.EINTR) && e != uintptr(syscall.EAGAIN)) {
				open = false
				rawPoll[1] = uint64(uint32(0xffffffff)) // fd -1: ignored
			}
		}
		rawPoll[0] &^= 0xffff << 48
		rawPoll[1] &^= 0xffff << 48
	}
	if !ended {
		// Only a poll that failed ends the loop early: the command runs
		// on, unwatched; it dies with this process.
		code = 126
	}
	// The status, once the output is all written, as the Go helper's
	// report sends it.
	rawSyscall6(syscall.SYS_CLOSE, 1, 0, 0, 0, 0, 0)
	rawSyscall6(syscall.SYS_CLOSE, 2, 0, 0, 0, 0, 0)
	binary.NativeEndian.PutUint32(rawText[:], uint32(code))
	rawSyscall6(syscall.SYS_WRITE, confine.WarmFD, uintptr(unsafe.Pointer(&rawText[0])), 4, 0, 0, 0)
	rawExit(code)
}
