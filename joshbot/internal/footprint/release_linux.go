package footprint

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// ReleaseExecutable unmaps the pages of the process's own executable that
// are mapped read-only and hold exactly the file's bytes (machine code,
// constants, function and type tables), and returns how many bytes of
// mappings it advised.
//
// It uses madvise(MADV_DONTNEED), which on a file mapping only drops the
// process's page-table entries: the pages stay in the page cache, so the
// ones still in use come back by a minor fault, without reading the disk,
// while the rest stop counting against the process and become the first
// pages the kernel reclaims. Writable mappings (the data segment, the
// heap, stacks) are never touched, nor is a read-only mapping with any
// private copy in it, such as the relocation tables a dynamic loader
// fills in and then write-protects (RELRO in a cgo build): dropping those
// pages would bring back the file's unrelocated bytes.
func ReleaseExecutable() (int, error) {
	var st unix.Stat_t
	if err := unix.Stat("/proc/self/exe", &st); err != nil {
		return 0, fmt.Errorf("footprint: stat /proc/self/exe: %w", err)
	}
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return 0, fmt.Errorf("footprint: %w", err)
	}
	ranges, err := pristineMappings(f, mapsDevice(unix.Major(st.Dev), unix.Minor(st.Dev)), st.Ino)
	f.Close()
	if err != nil {
		return 0, fmt.Errorf("footprint: read /proc/self/smaps: %w", err)
	}
	total := 0
	for _, r := range ranges {
		if _, _, errno := unix.Syscall(unix.SYS_MADVISE, r[0], r[1]-r[0], unix.MADV_DONTNEED); errno != 0 {
			return total, fmt.Errorf("footprint: madvise %#x-%#x: %w", r[0], r[1], syscall.Errno(errno))
		}
		total += int(r[1] - r[0])
	}
	return total, nil
}

// pristineMappings reads an smaps file and returns the address ranges of
// the read-only mappings of the given file that hold no private
// (anonymous) pages.
func pristineMappings(smaps io.Reader, dev string, ino uint64) ([][2]uintptr, error) {
	var out [][2]uintptr
	var cur [2]uintptr
	candidate := false
	sc := bufio.NewScanner(smaps)
	for sc.Scan() {
		line := sc.Text()
		if lo, hi, ok := readOnlyMapping(line, dev, ino); ok {
			cur, candidate = [2]uintptr{lo, hi}, true
			continue
		}
		if isMappingHeader(line) {
			candidate = false
			continue
		}
		if !candidate {
			continue
		}
		if v, ok := strings.CutPrefix(line, "Anonymous:"); ok {
			// Decided on this line: a mapping with private copies is
			// left alone.
			candidate = false
			if strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")) == "0" {
				out = append(out, cur)
			}
		}
	}
	return out, sc.Err()
}

// isMappingHeader reports whether an smaps line starts a mapping (an
// address range) rather than being one of its "Field: value" lines.
func isMappingHeader(line string) bool {
	first, _, _ := strings.Cut(line, " ")
	lo, hi, ok := strings.Cut(first, "-")
	if !ok || lo == "" || hi == "" {
		return false
	}
	for _, c := range lo + hi {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}

// mapsDevice formats a device number the way /proc/self/maps prints it.
func mapsDevice(major, minor uint32) string {
	return fmt.Sprintf("%02x:%02x", major, minor)
}

// readOnlyMapping parses one line of /proc/self/maps and reports the
// address range when the mapping is of the file with the given device and
// inode and is not writable.
func readOnlyMapping(line, dev string, ino uint64) (lo, hi uintptr, ok bool) {
	// address perms offset dev inode [path]
	fields := strings.Fields(line)
	if len(fields) < 5 || len(fields[1]) < 4 {
		return 0, 0, false
	}
	if fields[1][1] == 'w' || fields[3] != dev {
		return 0, 0, false
	}
	if n, err := strconv.ParseUint(fields[4], 10, 64); err != nil || n != ino || n == 0 {
		return 0, 0, false
	}
	a, b, found := strings.Cut(fields[0], "-")
	if !found {
		return 0, 0, false
	}
	l, err1 := strconv.ParseUint(a, 16, 64)
	h, err2 := strconv.ParseUint(b, 16, 64)
	if err1 != nil || err2 != nil || h <= l {
		return 0, 0, false
	}
	return uintptr(l), uintptr(h), true
}
