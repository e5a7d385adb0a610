package memory

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"
	"time"
)

// Info describes one stored session without loading it.
type Info struct {
	// Key is the session key.
	Key string
	// Size is the session file's size in bytes.
	Size int64
	// Updated is the session file's modification time.
	Updated time.Time
}

// List describes every stored session, most recently updated first (ties in
// key order).
func (s *Store) List() ([]Info, error) {
	keys, err := s.Keys()
	if err != nil {
		return nil, err
	}
	out := make([]Info, 0, len(keys))
	for _, k := range keys {
		p, _ := s.Path(k)
		fi, err := os.Stat(p)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // removed since Keys read the directory
			}
			return nil, errorf("memory: list sessions: %w", err)
		}
		out = append(out, Info{Key: k, Size: fi.Size(), Updated: fi.ModTime()})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[j].Updated.Before(out[i].Updated) })
	return out, nil
}

// Remove deletes every file of key's session: the transcript, its sidecar,
// its history archive, its quarantine files and its lock file. Removing a
// session that does not exist is not an error. The caller should hold Lock
// for key so no turn is writing it.
func (s *Store) Remove(key string) error {
	path, err := s.Path(key)
	if err != nil {
		return err
	}
	unlock, err := s.lockKey(key)
	if err != nil {
		return errorf("memory: remove session %q: %w", key, err)
	}
	meta, _ := s.MetaPath(key)
	archive, _ := s.ArchivePath(key)
	s.counts.clear(key, int(^uint(0)>>1))
	var errs []error
	for _, p := range []string{path, path + ".corrupt", meta, meta + ".corrupt", archive} {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	unlock()
	// The lock file goes last, after the lock is released; a process that
	// locks it in between merely recreates it.
	lock := s.dir + string(os.PathSeparator) + "." + keyStem(key) + ".lock"
	if err := os.Remove(lock); err != nil && !errors.Is(err, fs.ErrNotExist) {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return errorf("memory: remove session %q: %w", key, err)
	}
	return nil
}

// Reset starts key's session afresh without losing anything: its messages
// are appended to the history archive first, then the session is emptied
// and its model, personality and agent overrides are cleared. If the archive
// cannot be written, nothing changes. The caller should hold Lock for key.
func (s *Store) Reset(key string) error {
	sess, err := s.Load(key)
	if err != nil {
		return err
	}
	if len(sess.Messages) > 0 {
		if err := s.Archive(key, sess.Messages); err != nil {
			return errorf("memory: reset session %q abandoned: %w", key, err)
		}
	}
	n := len(sess.Messages)
	sess.Messages = nil
	if err := s.Save(sess); err != nil {
		return errorf("memory: reset session %q: %w", key, err)
	}
	return s.UpdateMeta(key, func(m *Meta) {
		m.ModelOverride, m.Personality, m.Agent = "", "", ""
		m.ArchivedMessages += n
	})
}

// Snapshot is a read-only view of a session file, as [Store.Read] returns.
type Snapshot struct {
	// Key is the session key.
	Key string
	// Messages are the readable messages, in file order.
	Messages []Message
	// Unreadable counts lines that were skipped as damaged.
	Unreadable int
	// Interrupted reports that the file ends in part of a line that does
	// not decode: a save cut off in the middle of its write (a process
	// killed while appending), whose bytes were never acknowledged. It is
	// not counted in Unreadable; Load cuts it off.
	Interrupted bool
	// Size is the file's size in bytes and SHA256 the hex SHA-256 of its
	// bytes; both describe exactly what was read.
	Size   int64
	SHA256 string
	// Updated is the file's modification time.
	Updated time.Time
}

// Read returns a snapshot of key's session without any side effect: unlike
// Load it neither quarantines unreadable lines nor rewrites the file, which
// is what an export for a bug report needs, since repairing the file would
// erase the damage being reported. A missing session is an error wrapping
// fs.ErrNotExist.
func (s *Store) Read(key string) (*Snapshot, error) {
	path, err := s.Path(key)
	if err != nil {
		return nil, err
	}
	snap, err := readSnapshot(path)
	if err != nil {
		return nil, errorf("memory: read session %q: %w", key, err)
	}
	snap.Key = key
	return snap, nil
}

func readSnapshot(path string) (*Snapshot, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	snap := &Snapshot{Updated: info.ModTime()}
	cr := &countingReader{r: io.TeeReader(f, h)}
	bad, err := readMessages(cr, &snap.Messages)
	if err != nil {
		return nil, err
	}
	snap.Unreadable = countDamaged(bad)
	snap.Interrupted = len(bad) > 0 && bad[len(bad)-1].torn
	snap.Size = cr.n
	snap.SHA256 = hex.EncodeToString(h.Sum(nil))
	return snap, nil
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// SearchOptions narrows [Store.Search]. A nil *SearchOptions means every
// session, archives included, and DefaultSearchLimit hits.
type SearchOptions struct {
	// Keys restricts the search to these sessions; nil means all of them.
	// An invalid key is an error.
	Keys []string
	// Limit caps the hits; zero or negative means DefaultSearchLimit.
	Limit int
	// SkipArchives leaves the history archives of compacted sessions out.
	SkipArchives bool
}

// DefaultSearchLimit is how many hits Search returns by default.
const DefaultSearchLimit = 20

// Hit is one message that matched a search.
type Hit struct {
	// Key is the session the message belongs to.
	Key string
	// Message is the matching message.
	Message Message
	// Archived is true when the message came from the history archive of a
	// compacted session rather than its live transcript.
	Archived bool
}

// Search returns the messages whose text, tool name or tool arguments
// contain query, compared case-insensitively, newest first. Files are read
// without side effects, as with Read. An empty query is an error.
func (s *Store) Search(query string, opts *SearchOptions) ([]Hit, error) {
	q := strings.ToLower(strings.TrimSpace(query))
	if q == "" {
		return nil, errors.New("memory: search: the query is empty")
	}
	if opts == nil {
		opts = &SearchOptions{}
	}
	limit := opts.Limit
	if limit <= 0 {
		limit = DefaultSearchLimit
	}
	keys := opts.Keys
	if keys == nil {
		var err error
		if keys, err = s.Keys(); err != nil {
			return nil, err
		}
		// Sessions whose live transcript is gone may still have archives;
		// those are found only through explicit keys.
	}
	var hits []Hit
	for _, k := range keys {
		path, err := s.Path(k)
		if err != nil {
			return nil, errorf("memory: search: %w", err)
		}
		files := []string{path}
		if !opts.SkipArchives {
			a, _ := s.ArchivePath(k)
			files = append(files, a)
		}
		for i, p := range files {
			err := scanFile(p, func(m *Message) {
				if messageMatches(m, q) {
					hits = append(hits, Hit{Key: k, Message: *m, Archived: i == 1})
				}
			})
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, errorf("memory: search session %q: %w", k, err)
			}
		}
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if c := hits[j].Message.Time.Compare(hits[i].Message.Time); c != 0 {
			return c < 0
		}
		return hits[i].Key < hits[j].Key
	})
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits, nil
}

func messageMatches(m *Message, q string) bool {
	if containsFold(m.Content, q) {
		return true
	}
	for _, c := range m.ToolCalls {
		if containsFold(c.Name, q) || containsFold(c.Arguments, q) {
			return true
		}
	}
	return false
}

// containsFold reports whether s contains the lowercase q, ignoring case,
// without allocating for ASCII text.
func containsFold(s, q string) bool {
	if len(q) > len(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return strings.Contains(strings.ToLower(s), q)
		}
	}
	first := q[0]
	for i := 0; i+len(q) <= len(s); i++ {
		if lowerASCII(s[i]) != first {
			continue
		}
		j := 1
		for j < len(q) && lowerASCII(s[i+j]) == q[j] {
			j++
		}
		if j == len(q) {
			return true
		}
	}
	return false
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + ('a' - 'A')
	}
	return c
}

// scanFile decodes each readable message of the JSONL file at path and calls
// fn with it, skipping unreadable lines, without modifying the file.
func scanFile(path string, fn func(*Message)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var msgs []Message
	if _, err := readMessages(bufio.NewReaderSize(f, 64<<10), &msgs); err != nil {
		return err
	}
	for i := range msgs {
		fn(&msgs[i])
	}
	return nil
}
