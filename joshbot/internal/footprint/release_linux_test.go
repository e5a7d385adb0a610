package footprint

import (
	"bufio"
	"encoding/binary"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

func TestReadOnlyMapping(t *testing.T) {
	cases := []struct {
		line   string
		ok     bool
		lo, hi uintptr
	}{
		{"00400000-009a9000 r-xp 00000000 fe:00 9978916 /usr/bin/joshbot", true, 0x400000, 0x9a9000},
		{"009a9000-00ff9000 r--p 005a9000 fe:00 9978916 /usr/bin/joshbot (deleted)", true, 0x9a9000, 0xff9000},
		{"00ff9000-0105d000 rw-p 00bf9000 fe:00 9978916 /usr/bin/joshbot", false, 0, 0}, // writable data
		{"00400000-009a9000 r-xp 00000000 fe:01 9978916 /other/disk", false, 0, 0},      // other device
		{"00400000-009a9000 r-xp 00000000 fe:00 12 /usr/lib/libc.so", false, 0, 0},      // other file
		{"7ffc1c09e000-7ffc1c0bf000 rw-p 00000000 00:00 0 [stack]", false, 0, 0},
		{"7f92e2660000-7f92e2800000 r--p 00000000 00:00 0", false, 0, 0}, // anonymous
		{"garbage", false, 0, 0},
		{"zz-00 r-xp 00000000 fe:00 9978916 /usr/bin/joshbot", false, 0, 0},
		{"00500000-00400000 r-xp 00000000 fe:00 9978916 /usr/bin/joshbot", false, 0, 0}, // backwards
	}
	for _, c := range cases {
		lo, hi, ok := readOnlyMapping(c.line, "fe:00", 9978916)
		if ok != c.ok || lo != c.lo || hi != c.hi {
			t.Errorf("readOnlyMapping(%q) = %#x, %#x, %v; want %#x, %#x, %v", c.line, lo, hi, ok, c.lo, c.hi, c.ok)
		}
	}
	if got := mapsDevice(259, 1); got != "103:01" {
		t.Errorf("mapsDevice(259, 1) = %q, want 103:01", got)
	}
}

// exeResidentKB sums the resident kilobytes of the executable's read-only
// and writable mappings, from /proc/self/smaps.
func exeResidentKB(t *testing.T) (readOnly, writable int) {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Stat("/proc/self/exe", &st); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dev := mapsDevice(unix.Major(st.Dev), unix.Minor(st.Dev))
	ino := strconv.FormatUint(st.Ino, 10)
	var in, w bool
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		if len(fields) >= 5 && strings.Contains(fields[0], "-") {
			in = fields[3] == dev && fields[4] == ino
			w = len(fields[1]) > 1 && fields[1][1] == 'w'
			continue
		}
		if !in || len(fields) < 2 || fields[0] != "Rss:" {
			continue
		}
		kb, _ := strconv.Atoi(fields[1])
		if w {
			writable += kb
		} else {
			readOnly += kb
		}
	}
	return readOnly, writable
}

// state lives in the executable's writable data segment; a release must
// never disturb it.
var state = []int{1, 2, 3}

func TestReleaseExecutableUnmapsCodeAndKeepsData(t *testing.T) {
	state[1] = 42 // a change only memory holds
	before, wBefore := exeResidentKB(t)
	if before == 0 {
		t.Fatal("found no resident read-only mapping of the test executable in /proc/self/smaps")
	}
	n, err := ReleaseExecutable()
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("ReleaseExecutable advised no mapping")
	}
	after, wAfter := exeResidentKB(t)
	t.Logf("read-only resident %d KiB → %d KiB of %d KiB mapped; writable %d → %d KiB", before, after, n>>10, wBefore, wAfter)
	// Reading smaps to measure runs code too, and every page it touches
	// comes back with its neighbours, so in a small test binary much
	// returns at once; a fifth must stay gone. (In the joshbot gateway,
	// about 8 of 10 MiB stay gone: see bench/report.md.)
	if after*5 > before*4 {
		t.Errorf("read-only resident pages went from %d KiB to %d KiB; want at least a fifth released", before, after)
	}
	if wAfter < wBefore {
		t.Errorf("writable resident pages shrank from %d KiB to %d KiB; releases must leave them alone", wBefore, wAfter)
	}
	if state[0] != 1 || state[1] != 42 || state[2] != 3 {
		t.Errorf("data changed by the release: %v", state)
	}
	// The code still runs: the pages come back on use.
	if got := strings.Repeat("ab", 3); got != "ababab" {
		t.Errorf("code misbehaved after a release: %q", got)
	}
}

func TestPristineMappingsSkipsPrivateCopies(t *testing.T) {
	smaps := `00400000-00600000 r-xp 00000000 fe:00 77 /usr/bin/joshbot
Size:               2048 kB
Rss:                1800 kB
Anonymous:             0 kB
VmFlags: rd ex mr mw me
00600000-00700000 r--p 00200000 fe:00 77 /usr/bin/joshbot
Size:               1024 kB
Anonymous:             0 kB
00700000-00710000 r--p 00300000 fe:00 77 /usr/bin/joshbot
Size:                 64 kB
Anonymous:            64 kB
00710000-00720000 rw-p 00310000 fe:00 77 /usr/bin/joshbot
Anonymous:            12 kB
7f0000000000-7f0000100000 r-xp 00000000 fe:00 99 /usr/lib/libc.so.6
Anonymous:             0 kB
7f0000200000-7f0000300000 r--p 00000000 00:00 0
Anonymous:             0 kB
`
	got, err := pristineMappings(strings.NewReader(smaps), "fe:00", 77)
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]uintptr{{0x400000, 0x600000}, {0x600000, 0x700000}}
	if len(got) != len(want) {
		t.Fatalf("pristineMappings = %#x, want %#x (the relocated read-only mapping, the data, other files and anonymous memory left out)", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("pristineMappings = %#x, want %#x", got, want)
		}
	}
	for _, bad := range []string{"Size: 4 kB", "Anonymous: 0 kB", "VmFlags: rd ex", "zz-yy r-xp"} {
		if isMappingHeader(bad) {
			t.Errorf("isMappingHeader(%q) = true", bad)
		}
	}
}

// codeMapping returns the bounds of the test executable's machine code,
// from /proc/self/maps: one mapping, or several side by side once a page
// of it was made writable (TestReleaseCodeLeavesPrivateCopiesAlone).
func codeMapping(t *testing.T) (lo, hi uintptr) {
	t.Helper()
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 || f[5] != exe || f[1] != "r-xp" {
			continue
		}
		a, z, _ := strings.Cut(f[0], "-")
		l, err1 := strconv.ParseUint(a, 16, 64)
		h, err2 := strconv.ParseUint(z, 16, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("unparsable mapping %q", line)
		}
		if lo == 0 {
			lo = uintptr(l)
		} else if uintptr(l) != hi {
			t.Fatalf("the code's mappings are not side by side at %#x", l)
		}
		hi = uintptr(h)
	}
	if lo == 0 {
		t.Fatalf("no r-xp mapping of %s in /proc/self/maps", exe)
	}
	return lo, hi
}

// present reports, for each page from lo to hi, whether it is mapped in
// this process, from /proc/self/pagemap (bit 63, which needs no
// privilege).
func present(t *testing.T, lo, hi uintptr) []bool {
	t.Helper()
	f, err := os.Open("/proc/self/pagemap")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	page := uintptr(os.Getpagesize())
	n := int((hi - lo) / page)
	buf := make([]byte, 8*n)
	if _, err := f.ReadAt(buf, int64(lo/page*8)); err != nil {
		t.Fatal(err)
	}
	out := make([]bool, n)
	for i := range out {
		out[i] = binary.NativeEndian.Uint64(buf[8*i:])&(1<<63) != 0
	}
	return out
}

func TestReleaseCodeDropsOnlyTheCodeAboveItsAddress(t *testing.T) {
	state[1] = 7
	lo, hi := codeMapping(t)
	page := uintptr(os.Getpagesize())
	from := lo + (hi-lo)/2&^(page-1)
	before := present(t, lo, hi)
	n, err := ReleaseCode(from + 123) // any address in a page: the page is where it starts
	if err != nil {
		t.Fatal(err)
	}
	after := present(t, lo, hi)
	if n != int(hi-from) {
		t.Errorf("ReleaseCode advised %d bytes, want %d: from %#x to the end of the code at %#x", n, hi-from, from, hi)
	}
	split := int((from - lo) / page)
	for i := 0; i < split; i++ {
		if before[i] && !after[i] {
			t.Fatalf("page %#x, below the address, was unmapped", lo+uintptr(i)*page)
		}
	}
	// The test runs code above the address again while it measures
	// (reading pagemap), which maps pages back with their neighbours;
	// a fifth must stay gone, as in TestReleaseExecutableUnmapsCodeAndKeepsData.
	was, still := 0, 0
	for i := split; i < len(before); i++ {
		if before[i] {
			was++
			if after[i] {
				still++
			}
		}
	}
	t.Logf("pages above %#x: %d mapped before, %d after", from, was, still)
	if was == 0 {
		t.Fatal("no page above the address was mapped to begin with")
	}
	if still*5 > was*4 {
		t.Errorf("%d of the %d mapped pages above the address stayed mapped; want at least a fifth released", still, was)
	}
	if state[1] != 7 {
		t.Errorf("data changed by the release: %v", state)
	}
	if n, err := ReleaseCode(hi); err != nil || n != 0 {
		t.Errorf("ReleaseCode(end of the code) = %d, %v; want nothing released", n, err)
	}
}

// TestReleaseCodeLeavesPrivateCopiesAlone: a page of code with a private
// copy (a debugger's breakpoint writes one) keeps it; dropping it would
// bring back the file's bytes under the debugger.
func TestReleaseCodeLeavesPrivateCopiesAlone(t *testing.T) {
	lo, _ := codeMapping(t)
	page := uintptr(os.Getpagesize())
	// The page of a function this test does not run while it writes.
	fn := reflect.ValueOf(mapsDevice).UnsafePointer()
	start := unsafe.Add(fn, -int(uintptr(fn)%page))
	at := uintptr(start)
	code := unsafe.Slice((*byte)(start), page)
	// Writable and still executable while the same byte is written back,
	// so a thread running this page meanwhile is not disturbed.
	if err := unix.Mprotect(code, unix.PROT_READ|unix.PROT_WRITE|unix.PROT_EXEC); err != nil {
		t.Skipf("code cannot be made writable here, as a debugger would: %v", err)
	}
	// An atomic add of 0 is a write the compiler keeps.
	atomic.AddUint32((*uint32)(start), 0)
	if err := unix.Mprotect(code, unix.PROT_READ|unix.PROT_EXEC); err != nil {
		t.Fatal(err)
	}
	// The copy holds the file's own bytes; dropping it afterwards leaves
	// the code as other tests expect it.
	t.Cleanup(func() { unix.Madvise(code, unix.MADV_DONTNEED) })
	if _, err := ReleaseCode(lo); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("/proc/self/pagemap")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var e [8]byte
	if _, err := f.ReadAt(e[:], int64(at/page*8)); err != nil {
		t.Fatal(err)
	}
	v := binary.NativeEndian.Uint64(e[:])
	if v&(1<<63) == 0 || v&(1<<61) != 0 {
		t.Errorf("the page with a private copy is %s after ReleaseCode; want it kept, present and anonymous (pagemap entry %#x)",
			map[bool]string{true: "the file's own", false: "gone"}[v&(1<<63) != 0], v)
	}
}
