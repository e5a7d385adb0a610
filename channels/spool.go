package channels

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/joshbot/joshbot/memory/atomicfile"
)

// Attachment kinds: a coarse class of content, decided by [KindForMime].
const (
	KindImage = "image"
	KindAudio = "audio"
	KindPDF   = "pdf"
	KindFile  = "file"
)

// MaxAttachmentBytes caps one inbound attachment, so a hostile or huge
// upload cannot fill the disk. It sits above every transcription
// provider's audio limit.
const MaxAttachmentBytes = 25 << 20

// ErrTooLarge is returned (wrapped) by [SaveToSpool] for a stream over
// [MaxAttachmentBytes].
var ErrTooLarge = errors.New("attachment over the size limit")

// Attachment is one piece of inbound media in the spool.
type Attachment struct {
	// Path is the absolute path of the file inside the spool.
	Path string
	// Kind is KindImage, KindAudio, KindPDF or KindFile.
	Kind string
	// Mime is what the platform said the type was; a hint only.
	Mime string
	// Name is the sender's file name, for display only.
	Name string
}

// ID returns the attachment's spool id: the bare file name. Ids, never
// paths, cross process boundaries (the durable inbox, a job's context);
// the consumer turns one back into a path with [ResolveSpoolID].
func (a Attachment) ID() string { return filepath.Base(a.Path) }

// KindForMime maps a MIME type, or failing that the file name's
// extension, to an attachment kind.
func KindForMime(mimeType, name string) string {
	mt := strings.ToLower(strings.TrimSpace(mimeType))
	if i := strings.IndexByte(mt, ';'); i >= 0 {
		mt = strings.TrimSpace(mt[:i])
	}
	switch {
	case strings.HasPrefix(mt, "image/"):
		return KindImage
	case strings.HasPrefix(mt, "audio/"):
		return KindAudio
	case mt == "application/pdf":
		return KindPDF
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".png", ".jpg", ".jpeg", ".gif", ".webp":
		return KindImage
	case ".mp3", ".ogg", ".oga", ".opus", ".wav", ".m4a", ".flac", ".webm":
		return KindAudio
	case ".pdf":
		return KindPDF
	}
	return KindFile
}

// SaveToSpool streams r into the spool directory dir as <sha256>.<ext>,
// content-addressed so the same bytes are stored once, and returns the
// attachment. The file is 0600 in a 0700 directory. A stream longer than
// [MaxAttachmentBytes] is refused with [ErrTooLarge] and leaves nothing
// behind: an over-limit upload is an error, never a truncated file.
func SaveToSpool(dir string, r io.Reader, mimeType, name string) (Attachment, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return Attachment{}, errorf("spool %s: %w", dir, err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Attachment{}, errorf("spool %s: %w", dir, err)
	}
	f, err := atomicfile.Create(dir, "incoming", 0o600)
	if err != nil {
		return Attachment{}, errorf("spool %s: %w", dir, err)
	}
	defer f.Discard() // a no-op once committed
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), io.LimitReader(r, MaxAttachmentBytes+1))
	if err != nil {
		return Attachment{}, errorf("spool %q: %w", name, err)
	}
	if n > MaxAttachmentBytes {
		return Attachment{}, errorf("spool %q: %w (%d MiB)", name, ErrTooLarge, MaxAttachmentBytes>>20)
	}
	kind := KindForMime(mimeType, name)
	id := hex.EncodeToString(h.Sum(nil)) + spoolExt(kind, name)
	path := filepath.Join(dir, id)
	if err := f.Commit(path); err != nil {
		return Attachment{}, errorf("spool %q: %w", name, err)
	}
	return Attachment{Path: path, Kind: kind, Mime: mimeType, Name: name}, nil
}

// spoolExt picks a short, safe extension: the file name's own when it is
// plain alphanumerics, else one that matches the kind.
func spoolExt(kind, name string) string {
	ext := strings.ToLower(filepath.Ext(name))
	if len(ext) >= 2 && len(ext) <= 9 && isAlnum(ext[1:]) {
		return ext
	}
	switch kind {
	case KindImage:
		return ".img"
	case KindAudio:
		return ".audio"
	case KindPDF:
		return ".pdf"
	}
	return ".bin"
}

func isAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return s != ""
}

// ResolveSpoolID turns a spool id back into a path strictly inside dir.
// The spool is the trust boundary, so only the exact shape SaveToSpool
// produces is accepted (64 hex digits and a short extension); anything
// carrying a separator, "..", or another shape is refused rather than
// resolved, as is an id whose file is missing or is not a regular file.
func ResolveSpoolID(dir, id string) (string, error) {
	hash, ext, _ := strings.Cut(id, ".")
	if len(hash) != 64 || !isHex(hash) || ext == "" || len(ext) > 8 || !isAlnum(ext) {
		return "", errorf("spool id %q is not one the spool issued", id)
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, id)
	fi, err := os.Lstat(path)
	if err != nil {
		return "", errorf("spool id %q: %w", id, err)
	}
	if !fi.Mode().IsRegular() {
		return "", errorf("spool id %q is not a regular file", id)
	}
	return path, nil
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// SweepSpool removes from the spool directory dir the files SaveToSpool
// made that were last written more than maxAge before now, and any
// interrupted upload (".incoming.*.tmp", or ".incoming-*" from before)
// as old. Nothing else in dir is touched. A missing directory is an empty spool. It returns how many
// files it removed; it goes on past a file it cannot remove and reports
// the first such error.
//
// Files are content-addressed and shared by every message that carried
// the same bytes; a [Router] with RouterOptions.SpoolDir removes a file
// once the last message carrying it is done, and its [Router.SweepSpool]
// keeps the files of messages still waiting.
func SweepSpool(dir string, maxAge time.Duration, now time.Time) (int, error) {
	return sweepSpool(dir, maxAge, now, nil)
}

// sweepSpool is [SweepSpool] sparing the spool files keep reports.
func sweepSpool(dir string, maxAge time.Duration, now time.Time, keep func(name string) bool) (int, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, errorf("sweep spool %s: %w", dir, err)
	}
	removed := 0
	var first error
	for _, e := range entries {
		name := e.Name()
		ours := strings.HasPrefix(name, ".incoming-") || atomicfile.IsTemp(name)
		if !ours {
			hash, ext, _ := strings.Cut(name, ".")
			ours = len(hash) == 64 && isHex(hash) && ext != "" && len(ext) <= 8 && isAlnum(ext)
		}
		if !ours || !e.Type().IsRegular() || (keep != nil && keep(name)) {
			continue
		}
		info, err := e.Info()
		if err != nil || now.Sub(info.ModTime()) <= maxAge {
			continue // gone already, or still fresh
		}
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			if first == nil {
				first = errorf("sweep spool %s: %w", dir, err)
			}
			continue
		}
		removed++
	}
	return removed, first
}

// SpoolResponse saves a download's body into the spool dir as
// [SaveToSpool] does, for an adapter fetching an attachment. It does not
// close the body. A refusal the sender should hear of (a 4xx status, a
// file over [MaxAttachmentBytes]) comes back as note, naming the file by
// label; err is a failure worth retrying (a 5xx or 429 status) or a spool
// error.
func SpoolResponse(dir string, resp *http.Response, mimeType, name, label string) (att Attachment, note string, err error) {
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		if resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests {
			return Attachment{}, "", errorf("download %s: %s", label, resp.Status)
		}
		return Attachment{}, fmt.Sprintf("%s could not be fetched (%s).", label, resp.Status), nil
	}
	att, err = SaveToSpool(dir, resp.Body, mimeType, name)
	if errors.Is(err, ErrTooLarge) {
		return Attachment{}, fmt.Sprintf("%s is over the %d MiB limit.", label, MaxAttachmentBytes>>20), nil
	}
	if err != nil {
		return Attachment{}, "", err
	}
	return att, "", nil
}
