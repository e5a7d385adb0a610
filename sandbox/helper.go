package sandbox

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// helperFile is the helper executable, opened, and checked against
// [Options.HelperBuildID], once for the life of a [Sandbox].
type helperFile struct {
	once sync.Once
	f    *os.File
	err  error
}

// openHelper returns the open helper executable: opened on first use and
// kept, so every command runs the file that was checked, even when the
// path is later replaced.
func (s *Sandbox) openHelper() (*os.File, error) {
	h := &s.helperExe
	h.once.Do(func() { h.f, h.err = openChecked(s.helper, s.helperID) })
	return h.f, h.err
}

// openChecked opens path and, when id is not empty, refuses it unless it
// carries that Go build ID.
func openChecked(path, id string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("sandbox: opening the helper: %w", err)
	}
	if id == "" {
		return f, nil
	}
	got, err := goBuildID(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("sandbox: %w: %s: %v, so it cannot be the build Options.HelperBuildID names; it was not run: replace it with the helper built together with this program", ErrHelperMismatch, path, err)
	}
	if got != id {
		f.Close()
		return nil, fmt.Errorf("sandbox: %w: %s has Go build ID %s, not the %s of Options.HelperBuildID; it was not run: replace it with the helper built together with this program",
			ErrHelperMismatch, path, got, id)
	}
	return f, nil
}

// goBuildID returns the Go build ID (what `go tool buildid` prints) that
// the Go linker records in an ELF note near the start of an executable.
// Its last part is a hash of the file's whole content, so a file of
// another build has another ID; reading it costs one small read, where
// hashing the file would cost milliseconds on every start.
func goBuildID(f *os.File) (string, error) {
	// The Go linker puts the note within the first two pages; the go
	// command looks as far as 32 KiB, so that is read only when the
	// first 8 KiB hold no ID. Each page of a larger buffer is a page
	// fault more on every start.
	if id, err := readGoBuildID(f, 8<<10); err == nil {
		return id, nil
	}
	return readGoBuildID(f, 32<<10)
}

// readGoBuildID is goBuildID looking in the first size bytes.
func readGoBuildID(f *os.File, size int) (string, error) {
	buf := make([]byte, size)
	n, err := f.ReadAt(buf, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	buf = buf[:n]
	if len(buf) < 16 || !bytes.HasPrefix(buf, []byte("\x7fELF")) {
		return "", errors.New("not an ELF executable")
	}
	var order binary.ByteOrder = binary.LittleEndian
	if buf[5] == 2 {
		order = binary.BigEndian
	}
	// A note: namesz, descsz and type (4 bytes each), the name "Go" padded
	// to 4 bytes, then the ID.
	const goNoteType = 4
	name := []byte("Go\x00\x00")
	for i := 12; i < len(buf); {
		j := bytes.Index(buf[i:], name)
		if j < 0 {
			break
		}
		at := i + j
		i = at + 1
		namesz, descsz, typ := order.Uint32(buf[at-12:]), order.Uint32(buf[at-8:]), order.Uint32(buf[at-4:])
		if namesz != 3 && namesz != 4 || typ != goNoteType || descsz == 0 || descsz > 512 || at+4+int(descsz) > len(buf) {
			continue
		}
		return string(buf[at+4 : at+4+int(descsz)]), nil
	}
	return "", errors.New("it carries no Go build ID")
}
