// Package atomicfile is joshbot's one durability guarantee for a file it
// rewrites: the new content goes to a temporary file in the same
// directory, which is synced, closed and renamed over the old file, and
// then the directory itself is synced. A crash or a SIGKILL at any point
// leaves the old complete content or the new complete content, never a
// torn or empty file, and once [Write] returns the new content survives a
// power cut.
//
// github.com/google/renameio/v2 (v2.0.2) gives the first three steps but
// not the directory sync, without which a crash may bring the old version
// back after Write has returned; hence this package, which uses only the
// standard library.
//
// Temporary files are named "." + base + "." + digits + ".tmp" and are
// hidden from directory listings. A process killed between creating one
// and renaming it leaves it behind; [Sweep] removes such leftovers and
// [IsTemp] recognises them.
//
// The package lives in the memory module, which depends on nothing, so
// every joshbot module that rewrites files may import it without taking
// on dependencies.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/joshbot/joshbot/memory/internal/sysfile"
)

// WriteFile replaces path with data durably (see the package comment),
// with permissions perm. The directory must exist.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	return Write(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Write replaces path durably with the bytes fill writes, with
// permissions perm. If fill returns an error, path is untouched and the
// temporary file is removed. Concurrent Writes to one path each use their
// own temporary file; the last rename wins. Errors name path.
func Write(path string, perm fs.FileMode, fill func(io.Writer) error) (err error) {
	f, err := Create(filepath.Dir(path), filepath.Base(path), perm)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			f.Discard()
			err = fmt.Errorf("write %s: %w", path, err)
		}
	}()
	bw := bufio.NewWriterSize(f, 64<<10)
	if err := fill(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return f.Commit(path)
}

// File is a temporary file whose final name may not be known until its
// content is (a content-addressed store names a file by its hash). Write
// to it, then [File.Commit] it to its name or [File.Discard] it.
type File struct {
	*os.File
	done bool
}

// Create opens a new temporary file in dir, named for base (the final
// file's base name, or a word for it), with permissions perm.
func Create(dir, base string, perm fs.FileMode) (*File, error) {
	f, err := createTemp(dir, "."+base+".", ".tmp")
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return &File{File: f}, nil
}

// createTemp creates a new file prefix+digits+suffix in dir (the
// system's temporary directory when dir is empty), as os.CreateTemp does,
// with fewer system calls (package sysfile): every turn stages its
// session through one.
func createTemp(dir, prefix, suffix string) (*os.File, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	if strings.ContainsRune(prefix+suffix, os.PathSeparator) {
		return nil, &fs.PathError{Op: "createtemp", Path: prefix + "*" + suffix, Err: errors.New("pattern contains path separator")}
	}
	prefix = filepath.Join(dir, prefix)
	for try := 0; ; try++ {
		name := prefix + strconv.FormatUint(uint64(rand.Uint32()), 10) + suffix
		f, err := sysfile.Open(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) && try < 10000 {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "createtemp", Path: prefix + "*" + suffix, Err: errors.Unwrap(err)}
		}
		return f, nil
	}
}

// Commit syncs and closes the file, renames it to path (which must be in
// the same directory) and syncs the directory. After an error the
// temporary file is removed. Commit or Discard may be called once.
func (f *File) Commit(path string) error {
	if f.done {
		return errors.New("atomicfile: file already committed or discarded")
	}
	f.done = true
	err := f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = sysfile.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return err
	}
	return SyncDir(filepath.Dir(path))
}

// Discard closes and removes the file unless it was committed. It is safe
// to defer after a Commit.
func (f *File) Discard() {
	if f.done {
		return
	}
	f.done = true
	f.Close()
	os.Remove(f.Name())
}

// Rename renames oldpath to newpath and syncs the directory (or both
// directories) so the rename survives a crash.
func Rename(oldpath, newpath string) error {
	if err := os.Rename(oldpath, newpath); err != nil {
		return err
	}
	if err := SyncDir(filepath.Dir(newpath)); err != nil {
		return err
	}
	if od := filepath.Dir(oldpath); od != filepath.Dir(newpath) {
		return SyncDir(od)
	}
	return nil
}

// SyncDir syncs directory dir, making the renames and creations in it
// durable. On Windows, which cannot open a directory for syncing and
// persists renames without it, it does nothing.
func SyncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := sysfile.Open(dir, os.O_RDONLY, 0)
	if err != nil {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	return nil
}

// IsTemp reports whether name (a base name) has the shape of this
// package's temporary files: "." + base + "." + digits + ".tmp", with a
// non-empty base.
func IsTemp(name string) bool {
	rest, ok := strings.CutPrefix(name, ".")
	if !ok {
		return false
	}
	rest, ok = strings.CutSuffix(rest, ".tmp")
	if !ok {
		return false
	}
	dot := strings.LastIndexByte(rest, '.')
	if dot <= 0 || dot == len(rest)-1 {
		return false
	}
	for _, c := range rest[dot+1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Sweep removes from dir the temporary files [IsTemp] recognises that were
// last modified more than olderThan ago, and returns how many it removed.
// A temporary file younger than that may belong to a writer still at work
// in another process; a caller that holds the directory alone (its
// single-instance lock, or a store opened before any writer starts) may
// pass 0. Only regular files directly in dir are considered; a directory
// that does not exist has nothing to sweep.
func Sweep(dir string, olderThan time.Duration) (int, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	cutoff := time.Now().Add(-olderThan)
	removed := 0
	var errs []error
	for _, e := range entries {
		if !e.Type().IsRegular() || !IsTemp(e.Name()) {
			continue
		}
		info, err := e.Info()
		if err != nil || (olderThan > 0 && info.ModTime().After(cutoff)) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		removed++
	}
	return removed, errors.Join(errs...)
}
