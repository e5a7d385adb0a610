package footprint

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// ReleaseCode is [ReleaseExecutable] for machine code alone, and only
// from the page holding the address from to the end of the code: the
// linker lays code out in dependency order, so what lies above an address
// is the code of the packages further from the runtime, and what lies
// below, the runtime's and the standard library's that any work runs
// again, stays mapped. Tables and constants stay mapped too: they are
// read from everywhere (type and function tables for every allocation
// and stack walk), and dropping them cost more minor faults than it saved.
//
// It is cheaper than ReleaseExecutable, for a process that has one turn
// to run: it reads /proc/self/maps and, for the range it would release,
// /proc/self/pagemap, where /proc/self/smaps would cost half a
// millisecond. A range with a private copy of a page in it (a debugger's
// or a uprobe's breakpoint) is left alone.
func ReleaseCode(from uintptr) (int, error) {
	var st unix.Stat_t
	if err := unix.Stat("/proc/self/exe", &st); err != nil {
		return 0, fmt.Errorf("footprint: stat /proc/self/exe: %w", err)
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return 0, fmt.Errorf("footprint: %w", err)
	}
	page := uintptr(os.Getpagesize())
	from &^= page - 1
	dev := mapsDevice(unix.Major(st.Dev), unix.Minor(st.Dev))
	total := 0
	for line := range strings.Lines(string(maps)) {
		lo, hi, ok := readOnlyMapping(line, dev, st.Ino)
		if !ok || !executable(line) || from >= hi {
			continue
		}
		lo = max(lo, from)
		private, err := privateCopies(lo, hi, page)
		if err != nil {
			return total, err
		}
		if private {
			continue
		}
		if _, _, errno := unix.Syscall(unix.SYS_MADVISE, lo, hi-lo, unix.MADV_DONTNEED); errno != 0 {
			return total, fmt.Errorf("footprint: madvise %#x-%#x: %w", lo, hi, syscall.Errno(errno))
		}
		total += int(hi - lo)
	}
	return total, nil
}

// privateCopies reports whether any page from lo to hi is a private copy
// rather than the file's own: /proc/self/pagemap has 8 bytes a page, in
// this machine's byte order, with bit 63 set when the page is present,
// bit 62 when it is swapped out (only a private copy can be) and bit 61
// when it is a file page.
func privateCopies(lo, hi, page uintptr) (bool, error) {
	f, err := os.Open("/proc/self/pagemap")
	if err != nil {
		return false, fmt.Errorf("footprint: %w", err)
	}
	defer f.Close()
	buf := make([]byte, 8*((hi-lo)/page))
	if _, err := f.ReadAt(buf, int64(lo/page*8)); err != nil {
		return false, fmt.Errorf("footprint: read /proc/self/pagemap: %w", err)
	}
	for i := 0; i < len(buf); i += 8 {
		e := binary.NativeEndian.Uint64(buf[i:])
		present, swapped, file := e&(1<<63) != 0, e&(1<<62) != 0, e&(1<<61) != 0
		if present && !file || swapped {
			return true, nil
		}
	}
	return false, nil
}

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

// executable reports whether a /proc/self/maps line's permissions allow
// execution.
func executable(line string) bool {
	_, rest, _ := strings.Cut(line, " ")
	return len(rest) >= 3 && rest[2] == 'x'
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
