package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"sync"
)

// helperFile is the helper executable, opened, and checked against
// [Options.HelperSHA256], once for the life of a [Sandbox].
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
	h.once.Do(func() { h.f, h.err = openChecked(s.helper, s.helperSum) })
	return h.f, h.err
}

// openChecked opens path and, when sum is not empty, refuses it unless its
// content has that hex SHA-256.
func openChecked(path, sum string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("sandbox: opening the helper: %w", err)
	}
	if sum == "" {
		return f, nil
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		f.Close()
		return nil, fmt.Errorf("sandbox: reading the helper %s: %w", path, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != sum {
		f.Close()
		return nil, fmt.Errorf("sandbox: %w: %s has SHA-256 %s, not the %s of Options.HelperSHA256; it was not run: replace it with the helper built together with this program",
			ErrHelperMismatch, path, got, sum)
	}
	return f, nil
}
