package sysfile_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/joshbot/joshbot/memory/internal/sysfile"
)

// TestOpenAndRenameBehaveAsPackageOS checks the files and errors against
// what package os gives: created with the mode asked (under the umask),
// appended to, synced, stat'ed, closed; a missing file and a bad rename
// fail with the same error types and causes.
func TestOpenAndRenameBehaveAsPackageOS(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "f")
	f, err := sysfile.Open(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("one\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	fi, err := f.Stat()
	if err != nil || fi.Size() != 4 || !fi.Mode().IsRegular() {
		t.Fatalf("stat: %v %v", fi, err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm()&^0o600 != 0 {
		t.Errorf("mode %v, want at most 0600", fi.Mode().Perm())
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := sysfile.Open(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600); !errors.Is(err, fs.ErrExist) {
		t.Errorf("O_EXCL on an existing file: %v, want fs.ErrExist", err)
	}
	a, err := sysfile.Open(name, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.WriteString("two\n"); err != nil {
		t.Fatal(err)
	}
	a.Close()
	if b, _ := os.ReadFile(name); string(b) != "one\ntwo\n" {
		t.Errorf("after the append: %q", b)
	}
	var pe *fs.PathError
	if _, err := sysfile.Open(filepath.Join(dir, "missing"), os.O_RDONLY, 0); !errors.As(err, &pe) || pe.Op != "open" || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %#v", err)
	}
	d, err := sysfile.Open(dir, os.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" {
		if err := d.Sync(); err != nil {
			t.Errorf("directory sync: %v", err)
		}
	}
	d.Close()

	moved := filepath.Join(dir, "g")
	if err := sysfile.Rename(name, moved); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(moved); err != nil {
		t.Fatal(err)
	}
	var le *os.LinkError
	if err := sysfile.Rename(name, moved); !errors.As(err, &le) || le.Op != "rename" || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("renaming a missing file: %#v", err)
	}
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o700)
	os.WriteFile(filepath.Join(sub, "x"), nil, 0o600)
	if err := sysfile.Rename(moved, sub); err == nil {
		t.Error("a file renamed over a non-empty directory")
	}
}
