package memory

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"
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
// history that was dropped cannot. The previous compaction record, if any,
// is not archived: its content is expected to be folded into summary. The
// counters of the session's Meta are updated afterwards; a failure there is
// returned but does not undo the compaction.
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
		return fmt.Errorf("memory: compact session %q: cut %d is outside (%d, %d]", sess.Key, cut, start, len(sess.Messages))
	}
	if cut < len(sess.Messages) && sess.Messages[cut].Role == "tool" {
		return fmt.Errorf("memory: compact session %q: cut %d would separate a tool result from its call", sess.Key, cut)
	}
	moved := sess.Messages[start:cut]
	if err := s.Archive(sess.Key, moved); err != nil {
		return fmt.Errorf("memory: compact session %q abandoned: %w", sess.Key, err)
	}
	record := Message{Role: "system", Kind: KindCompaction, Content: summary, Time: at}
	old := sess.Messages
	sess.Messages = append([]Message{record}, slices.Clone(old[cut:])...)
	if err := s.Save(sess); err != nil {
		sess.Messages = old
		return fmt.Errorf("memory: compact: %w (the archived messages are still in the session)", err)
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
func (s *Store) Archive(key string, msgs []Message) error {
	path, err := s.ArchivePath(key)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for i := range msgs {
		if err := enc.Encode(&msgs[i]); err != nil {
			return fmt.Errorf("archive: encode message %d: %w", i, err)
		}
	}
	unlock, err := s.lockKey(key)
	if err != nil {
		return fmt.Errorf("archive: %w", err)
	}
	defer unlock()
	return appendSync(path, buf.Bytes())
}

// appendSync appends b to the file name (mode 0600), making sure the file
// ends in a newline first so a line torn by an earlier crash cannot glue
// itself to the new data, and syncs it.
func appendSync(name string, b []byte) (err error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	if info, err := f.Stat(); err == nil && info.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, info.Size()-1); err != nil {
			return err
		}
		if last[0] != '\n' {
			b = append([]byte{'\n'}, b...)
		}
	}
	w := bufio.NewWriterSize(f, 64<<10)
	if _, err := w.Write(b); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Sync()
}
