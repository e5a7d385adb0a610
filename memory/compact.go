package memory

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/joshbot/joshbot/memory/internal/sysfile"
)

// archiveSuffix ends the stem of a session's history archive.
const archiveSuffix = ".history"

// KeepRecent is how many messages before the current turn compaction always
// leaves verbatim, so the summary replaces the earlier conversation while
// the model still sees the immediate context of the user's request.
const KeepRecent = 6

// ArchivePath returns the append-only file that receives the messages a
// compaction removes from key's session.
func (s *Store) ArchivePath(key string) (string, error) {
	if s.dir == "" {
		return "", errNoDir
	}
	if err := ValidateKey(key); err != nil {
		return "", err
	}
	return filepath.Join(s.dir, keyStem(key)+archiveSuffix+".jsonl"), nil
}

// CompactionCut returns the index c such that msgs[start:c] may be replaced
// by a summary, where start is 1 when msgs[0] is already a compaction record
// and 0 otherwise. It returns start when nothing may be compacted.
//
// The current turn (the last user message and everything after it) and the
// keep messages before it are never included, and the cut is moved earlier
// until msgs[c] is not a tool result, so an assistant's tool call is never
// separated from its results. A negative keep counts as zero.
func CompactionCut(msgs []Message, keep int) int {
	start := 0
	if len(msgs) > 0 && msgs[0].Kind == KindCompaction {
		start = 1
	}
	if keep < 0 {
		keep = 0
	}
	turn := len(msgs)
	for i := len(msgs) - 1; i >= start; i-- {
		if msgs[i].Role == "user" && msgs[i].Kind == "" {
			turn = i
			break
		}
	}
	c := turn - keep
	for c > start && c < len(msgs) && msgs[c].Role == "tool" {
		c--
	}
	if c <= start {
		return start
	}
	return c
}

// Compact replaces sess.Messages[start:cut] (see CompactionCut) with one
// compaction record carrying summary, stored at index 0, and saves sess.
//
// The replaced messages are first appended to the archive (ArchivePath) and
// flushed to stable storage; if that fails the compaction is abandoned and
// sess is left unchanged, because a summary can be computed again but
// history that was dropped cannot. If the session cannot be saved after
// that (a full disk, say), the archive is cut back to its previous size, so
// a compaction is all or nothing and trying it again archives nothing
// twice; a crash between the two steps is covered by Archive, which does
// not append what the archive already ends with. The previous compaction
// record, if any, is not archived: its content is expected to be folded
// into summary. The counters of the session's Meta are updated afterwards;
// a failure there is returned but does not undo the compaction.
//
// The caller should hold Lock for sess.Key, as for any change to a session.
func (s *Store) Compact(sess *Session, cut int, summary string, at time.Time) error {
	if sess == nil {
		return errors.New("memory: compact: nil session")
	}
	start := 0
	if len(sess.Messages) > 0 && sess.Messages[0].Kind == KindCompaction {
		start = 1
	}
	if cut <= start || cut > len(sess.Messages) {
		return errorf("memory: compact session %q: cut %d is outside (%d, %d]", sess.Key, cut, start, len(sess.Messages))
	}
	if cut < len(sess.Messages) && sess.Messages[cut].Role == "tool" {
		return errorf("memory: compact session %q: cut %d would separate a tool result from its call", sess.Key, cut)
	}
	moved := sess.Messages[start:cut]
	undo, err := s.archive(sess.Key, moved)
	if err != nil {
		return errorf("memory: compact session %q abandoned: %w", sess.Key, err)
	}
	record := Message{Role: "system", Kind: KindCompaction, Content: summary, Time: at}
	old := sess.Messages
	sess.Messages = append([]Message{record}, slices.Clone(old[cut:])...)
	if err := s.Save(sess); err != nil {
		sess.Messages = old
		if uerr := undo(); uerr != nil {
			// The next compaction finds these messages at the archive's
			// end and does not append them again.
			err = errors.Join(err, errorf("cut the archive back: %w", uerr))
		}
		return errorf("memory: compact: %w (the archived messages are still in the session)", err)
	}
	n := len(moved)
	return s.UpdateMeta(sess.Key, func(m *Meta) {
		m.Compactions++
		m.ArchivedMessages += n
		m.LastCompaction = at
	})
}

// Archive appends msgs to the history archive of key (see ArchivePath),
// one JSON line each, and syncs the file before returning. The archive is
// append-only: nothing in joshbot rewrites, rotates or prunes it except an
// explicit `joshbot sessions prune`.
//
// The append is idempotent and atomic. Messages the archive already ends
// with (the whole of msgs, or its start) are not written again, which is
// what an earlier attempt that was cut off after its append left behind;
// and an append that fails (a full disk) is truncated away, so the archive
// never keeps a torn line or half of msgs.
func (s *Store) Archive(key string, msgs []Message) error {
	_, err := s.archive(key, msgs)
	return err
}

// archive is Archive, returning the function that cuts the archive back to
// its size before this call (a no-op when nothing was appended, or when
// another writer appended since).
func (s *Store) archive(key string, msgs []Message) (undo func() error, err error) {
	noop := func() error { return nil }
	path, err := s.ArchivePath(key)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	ends := make([]int, len(msgs))
	for i := range msgs {
		if err := encodeLine(&buf, enc, &msgs[i]); err != nil {
			return nil, errorf("archive: encode message %d: %w", i, err)
		}
		ends[i] = buf.Len()
	}
	if len(msgs) == 0 {
		return noop, nil
	}
	unlock, err := s.lockKey(key)
	if err != nil {
		return nil, errorf("archive: %w", err)
	}
	defer unlock()
	done, err := archivedPrefix(path, buf.Bytes(), ends)
	if err != nil {
		return nil, errorf("archive: %w", err)
	}
	if done == len(msgs) {
		return noop, nil
	}
	from := 0
	if done > 0 {
		from = ends[done-1]
	}
	before, after, err := appendSyncSized(path, buf.Bytes()[from:], s.writerFor)
	if err != nil {
		return nil, err
	}
	return func() error {
		unlock, err := s.lockKey(key)
		if err != nil {
			return err
		}
		defer unlock()
		return truncateIfSize(path, after, before)
	}, nil
}

// archivedPrefix reports how many of the records in enc (message i ends at
// ends[i]) the file at path already ends with, as whole lines: the most k
// such that the file's last bytes are enc[:ends[k-1]] preceded by a newline
// or the start of the file.
func archivedPrefix(path string, enc []byte, ends []int) (int, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return 0, err
	}
	n := min(info.Size(), int64(len(enc))+1)
	tail := make([]byte, n)
	if _, err := f.ReadAt(tail, info.Size()-n); err != nil {
		return 0, err
	}
	for k := len(ends); k > 0; k-- {
		want := enc[:ends[k-1]]
		if !bytes.HasSuffix(tail, want) {
			continue
		}
		at := int64(len(tail) - len(want))
		if info.Size()-int64(len(want)) == 0 || (at > 0 && tail[at-1] == '\n') {
			return k, nil
		}
	}
	return 0, nil
}

// truncateIfSize cuts the file at path back to size to when it is still
// from bytes long, and syncs it.
func truncateIfSize(path string, from, to int64) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	if info.Size() != from {
		return nil
	}
	if err := f.Truncate(to); err != nil {
		return err
	}
	return f.Sync()
}

// appendSync appends b to the file name (mode 0600), making sure the file
// ends in a newline first so a line torn by an earlier crash cannot glue
// itself to the new data, and syncs it. A failed append is truncated away,
// so the file keeps its old bytes and no torn line.
func appendSync(name string, b []byte) (err error) {
	_, _, err = appendSyncSized(name, b, nil)
	return err
}

// appendSyncSized is appendSync writing through wrap when it is not nil;
// it returns the file's size before and after the append.
func appendSyncSized(name string, b []byte, wrap func(string, io.Writer) io.Writer) (before, after int64, err error) {
	f, err := sysfile.Open(name, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return 0, 0, err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	info, err := f.Stat()
	if err != nil {
		return 0, 0, err
	}
	size := info.Size()
	if size > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, size-1); err != nil {
			return 0, 0, err
		}
		if last[0] != '\n' {
			b = append([]byte{'\n'}, b...)
		}
	}
	defer func() {
		if err != nil {
			// Whatever part reached the file is cut off again; if even
			// that fails, the next append starts on a fresh line and the
			// reader quarantines the torn one.
			if terr := f.Truncate(size); terr == nil {
				f.Sync()
			}
		}
	}()
	var to io.Writer = f
	if wrap != nil {
		to = wrap(name, f)
	}
	if _, err := to.Write(b); err != nil {
		return 0, 0, err
	}
	if err := f.Sync(); err != nil {
		return 0, 0, err
	}
	return size, size + int64(len(b)), nil
}
