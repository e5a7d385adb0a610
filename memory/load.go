package memory

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"unicode/utf8"
)

// span is a byte range [start, end) of a session file.
// span is a byte range of a session file. torn marks the file's last
// line when it lacks its newline and does not decode: the end of a save
// cut off in the middle of its write, which was never acknowledged.
type span struct {
	start, end int64
	torn       bool
}

// load reads the session file at path; the caller holds the file lock for
// key, which keeps the quarantine-and-rewrite step from racing a Save.
func (s *Store) load(key, path string) (*Session, error) {
	sess := &Session{Key: key}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return sess, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	var bad []span
	if s.cache != nil && info.Size() <= cacheMaxBytes {
		// Read whole, so an unchanged file is recognised by its bytes and
		// its messages come from the cache without decoding.
		data := make([]byte, info.Size())
		if _, err := io.ReadFull(f, data); err != nil {
			return nil, err
		}
		sum := s.cache.sum(data)
		if msgs, ok := s.cache.get(key, sum, len(data)); ok {
			sess.Messages = msgs
		} else {
			sess.Messages = make([]Message, 0, len(data)/256+1)
			if bad, err = readMessages(bytes.NewReader(data), &sess.Messages); err != nil {
				return nil, err
			}
			if len(bad) == 0 {
				// A file that was there to read is taken as already in
				// its directory for good.
				s.cache.put(key, sum, len(data), sess.Messages, stampOf(info), true)
			} else {
				s.cache.drop(key)
			}
		}
	} else {
		// A rough first capacity saves the slice from doubling its way up
		// through a long session; typical lines are a few hundred bytes.
		sess.Messages = make([]Message, 0, min(info.Size()/256+1, 1<<16))
		if bad, err = readMessages(f, &sess.Messages); err != nil {
			return nil, err
		}
	}
	if len(sess.Messages) == 0 {
		sess.Messages = nil
	}
	sess.Created = firstTime(sess.Messages, info.ModTime())
	sess.Updated = info.ModTime()
	if len(bad) > 0 {
		s.quarantine(key, path, f, info.Size(), bad)
	}
	return sess, nil
}

// readMessages decodes one Message per line of r into *msgs and returns the
// byte ranges of lines it could not use. Only read errors are returned.
func readMessages(r io.Reader, msgs *[]Message) ([]span, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var (
		bad      []span
		acc      []byte // pieces of a line longer than the reader's buffer
		overlong bool   // the current line passed MaxLineBytes; acc is dropped
		start    int64  // offset of the current line
		off      int64  // offset after the bytes read so far
	)
	for {
		chunk, err := br.ReadSlice('\n')
		off += int64(len(chunk))
		if err == bufio.ErrBufferFull {
			if !overlong && len(acc)+len(chunk) > MaxLineBytes {
				overlong, acc = true, nil
			}
			if !overlong {
				acc = append(acc, chunk...)
			}
			continue
		}
		if err != nil && err != io.EOF {
			return nil, err
		}
		if off > start {
			line := chunk
			if len(acc) > 0 && len(acc)+len(chunk) <= MaxLineBytes {
				acc = append(acc, chunk...)
				line = acc
			} else if len(acc) > 0 {
				overlong = true
			}
			if overlong || !decodeLine(line, msgs) {
				unterminated := err == io.EOF && !bytes.HasSuffix(chunk, []byte("\n"))
				bad = append(bad, span{start: start, end: off, torn: unterminated})
			}
		}
		if err == io.EOF {
			return bad, nil
		}
		start, acc, overlong = off, acc[:0], false
	}
}

// decodeLine appends the message in line to *msgs. Blank lines count as
// success so that they are neither kept as messages nor quarantined.
func decodeLine(line []byte, msgs *[]Message) bool {
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 {
		return true
	}
	// encoding/json silently replaces invalid UTF-8 with U+FFFD. Save
	// never writes invalid UTF-8, so its presence means damage, and the
	// original bytes are worth preserving rather than decoding lossily.
	if !utf8.Valid(trimmed) {
		return false
	}
	var m Message
	if err := json.Unmarshal(trimmed, &m); err != nil || m.Role == "" {
		return false
	}
	*msgs = append(*msgs, m)
	return true
}

// quarantine copies the bad ranges of f to path+".corrupt" and then rewrites
// path without them. It never fails the load: problems are reported in the
// single warning it logs, and if the bad bytes cannot be preserved the
// session file is left as it is so that nothing is lost.
func (s *Store) quarantine(key, path string, f *os.File, size int64, bad []span) {
	corrupt := path + ".corrupt"
	err := appendRanges(corrupt, f, bad)
	if err != nil {
		slog.Warn("memory: skipped unreadable session lines but could not preserve them; session file left unchanged",
			"session", key, "skipped", len(bad), "quarantine", corrupt, "err", err)
		return
	}
	_, err = s.writeAtomic(path, func(w *bufio.Writer) error {
		var pos int64
		for _, b := range bad {
			if err := copyRange(w, f, pos, b.start); err != nil {
				return err
			}
			pos = b.end
		}
		return copyRange(w, f, pos, size)
	})
	if err != nil {
		slog.Warn("memory: skipped unreadable session lines; preserved them but could not remove them from the session file",
			"session", key, "skipped", len(bad), "quarantine", corrupt, "err", err)
		return
	}
	if damaged := countDamaged(bad); damaged > 0 {
		slog.Warn("memory: skipped unreadable session lines",
			"session", key, "skipped", damaged, "quarantine", corrupt)
		return
	}
	slog.Info("memory: cut off the torn end of a save interrupted by a crash; nothing acknowledged was in it",
		"session", key, "quarantine", corrupt)
}

// appendRanges appends the given ranges of src to the file name, creating it
// with mode 0600. Each range is terminated by a newline so that records from
// separate quarantines stay apart even when a torn line had none.
func appendRanges(name string, src io.ReaderAt, ranges []span) (err error) {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	if err := f.Chmod(0o600); err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for _, r := range ranges {
		if err := copyRange(w, src, r.start, r.end); err != nil {
			return err
		}
		last := make([]byte, 1)
		if _, err := src.ReadAt(last, r.end-1); err != nil {
			return errorf("read %d: %w", r.end-1, err)
		}
		if last[0] != '\n' {
			if err := w.WriteByte('\n'); err != nil {
				return err
			}
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Sync()
}

// countDamaged counts the bad lines that are damage, leaving out the torn
// end of an interrupted save.
func countDamaged(bad []span) int {
	n := 0
	for _, b := range bad {
		if !b.torn {
			n++
		}
	}
	return n
}
