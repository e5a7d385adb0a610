package mcpclient

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/joshbot/joshbot/memory/atomicfile"
)

// maxTrustFile bounds how much of a trust store is read; a real one is a
// few hundred bytes per server.
const maxTrustFile = 1 << 20

// Verdict is what a [TrustStore] says about one server's manifest.
type Verdict int

const (
	// Untrusted means no operator has approved the server.
	Untrusted Verdict = iota
	// Trusted means the operator approved exactly this manifest.
	Trusted
	// Revoked means the server was approved for a different manifest, or
	// its approval was withdrawn after its manifest changed; it must be
	// approved again.
	Revoked
)

// String returns the verdict's name as `joshbot mcp list` prints it.
func (v Verdict) String() string {
	switch v {
	case Trusted:
		return "trusted"
	case Revoked:
		return "revoked"
	}
	return "untrusted"
}

// Approval is one server's entry in the trust store.
type Approval struct {
	// SHA256 is the [Manifest.Hash] the operator approved.
	SHA256 string `json:"sha256"`
	// ApprovedAt is when it was approved.
	ApprovedAt time.Time `json:"approved_at"`
	// RevokedAt is set when the server was seen advertising a different
	// manifest; the zero time means the approval stands.
	RevokedAt time.Time `json:"revoked_at,omitzero"`
	// RevokedSHA256 is the manifest hash that caused the revocation.
	RevokedSHA256 string `json:"revoked_sha256,omitempty"`
}

type trustFile struct {
	Version int                 `json:"version"`
	Servers map[string]Approval `json:"servers"`
}

// TrustStore is the operator's record of which server manifests may reach
// the model, kept as JSON in one file of mode 0600 (by default
// ~/.joshbot/mcp.trust). A missing file trusts nothing; a file that cannot
// be read, does not parse, or can be written by other users is an error,
// and every caller treats an error as "not trusted". A nil *TrustStore
// trusts nothing.
//
// A TrustStore is safe for concurrent use, also across processes: a
// change is read, made and written under an exclusive lock of the file
// <path>.lock beside the store (flock on Unix), so two processes approving
// at the same instant both keep their approval. Writes replace the file
// atomically; reads take no lock.
type TrustStore struct {
	path string
	mu   sync.Mutex
	now  func() time.Time
}

// OpenTrustStore returns the store kept at path. It does no I/O: the file is
// read on every check, so an approval made by `joshbot mcp trust` in another
// process counts at once.
func OpenTrustStore(path string) *TrustStore {
	return &TrustStore{path: path, now: time.Now}
}

// Path returns the store's file.
func (s *TrustStore) Path() string {
	if s == nil {
		return ""
	}
	return s.path
}

// Check says whether hash is the approved manifest of server. A nil store
// or an unreadable file yields [Untrusted] with the error.
func (s *TrustStore) Check(server, hash string) (Verdict, Approval, error) {
	if s == nil {
		return Untrusted, Approval{}, errors.New("no trust store configured")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.read()
	if err != nil {
		return Untrusted, Approval{}, err
	}
	a, ok := f.Servers[server]
	switch {
	case !ok:
		return Untrusted, Approval{}, nil
	case !a.RevokedAt.IsZero() || a.SHA256 != hash:
		return Revoked, a, nil
	}
	return Trusted, a, nil
}

// Approve records hash as the approved manifest of server, replacing any
// earlier approval or revocation. It refuses to overwrite a store it cannot
// read, so nothing recorded there is lost.
func (s *TrustStore) Approve(server, hash string) error {
	if s == nil {
		return errors.New("no trust store configured")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	unlock, err := lockTrust(s.path)
	if err != nil {
		return err
	}
	defer unlock()
	f, err := s.read()
	if err != nil {
		return err
	}
	f.Servers[server] = Approval{SHA256: hash, ApprovedAt: s.now().UTC()}
	return s.write(f)
}

// Revoke withdraws the approval of server because it advertised the
// manifest seen (a hash). It does nothing when the server has no approval
// or is already revoked.
func (s *TrustStore) Revoke(server, seen string) error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	unlock, err := lockTrust(s.path)
	if err != nil {
		return err
	}
	defer unlock()
	f, err := s.read()
	if err != nil {
		return err
	}
	a, ok := f.Servers[server]
	if !ok || !a.RevokedAt.IsZero() {
		return nil
	}
	a.RevokedAt = s.now().UTC()
	a.RevokedSHA256 = seen
	f.Servers[server] = a
	return s.write(f)
}

// Remove deletes server's entry. It reports whether there was one.
func (s *TrustStore) Remove(server string) (bool, error) {
	if s == nil {
		return false, errors.New("no trust store configured")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	unlock, err := lockTrust(s.path)
	if err != nil {
		return false, err
	}
	defer unlock()
	f, err := s.read()
	if err != nil {
		return false, err
	}
	if _, ok := f.Servers[server]; !ok {
		return false, nil
	}
	delete(f.Servers, server)
	return true, s.write(f)
}

func (s *TrustStore) read() (*trustFile, error) {
	empty := &trustFile{Version: 1, Servers: map[string]Approval{}}
	fh, err := os.Open(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return empty, nil
	}
	if err != nil {
		return nil, errorf("mcp trust store %s: %w", s.path, err)
	}
	defer fh.Close()
	if fi, err := fh.Stat(); err == nil && fi.Mode().Perm()&0o022 != 0 {
		return nil, errorf("mcp trust store %s has mode %04o, writable by other users, so it cannot be believed: run `chmod 600 %s`", s.path, fi.Mode().Perm(), s.path)
	}
	data, err := io.ReadAll(io.LimitReader(fh, maxTrustFile+1))
	if err != nil {
		return nil, errorf("mcp trust store %s: %w", s.path, err)
	}
	if len(data) > maxTrustFile {
		return nil, errorf("mcp trust store %s is over %d KiB: it is not a trust store; move it aside", s.path, maxTrustFile>>10)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return empty, nil
	}
	var f trustFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, errorf("mcp trust store %s is damaged (%v): fix it or move it aside, then run `joshbot mcp trust` again", s.path, err)
	}
	if f.Version != 1 {
		return nil, errorf("mcp trust store %s has version %d; this joshbot reads version 1", s.path, f.Version)
	}
	if f.Servers == nil {
		f.Servers = map[string]Approval{}
	}
	return &f, nil
}

func (s *TrustStore) write(f *trustFile) error {
	f.Version = 1
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return errorf("mcp trust store: %w", err)
	}
	// A write killed between its temp file and the rename leaves the temp
	// file behind; the next write removes it once it is a minute old.
	atomicfile.Sweep(dir, time.Minute)
	if err := atomicfile.WriteFile(s.path, data, 0o600); err != nil {
		return errorf("mcp trust store: %w", err)
	}
	return nil
}
