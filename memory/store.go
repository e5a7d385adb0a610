package memory

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"hash/maphash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/joshbot/joshbot/memory/atomicfile"
	"github.com/joshbot/joshbot/memory/internal/sysfile"
)

// Message is one entry of a conversation, stored as one JSON line.
//
// The JSON shape mirrors common chat-completion APIs so that sessions are
// easy to inspect and to convert, but this module defines its own type so that
// it does not depend on any provider package. The zero Time is omitted from
// the JSON and means the time was not recorded.
type Message struct {
	// Role is "system", "user", "assistant" or "tool". A stored line
	// without a role is treated as unreadable.
	Role string `json:"role"`
	// Content is the message text; it may be empty for an assistant message
	// that only requests tool calls.
	Content string `json:"content,omitempty"`
	// ToolCalls lists the tools an assistant message asks to run.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID links a tool message to the ToolCall.ID it answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
	// Name is the tool name for tool messages, or an optional speaker name.
	Name string `json:"name,omitempty"`
	// Time is when the message was produced.
	Time time.Time `json:"ts,omitzero"`
	// Kind marks records that are not ordinary conversation. Empty means an
	// ordinary message; KindCompaction marks the summary that stands in for
	// the compacted start of a session.
	Kind string `json:"kind,omitempty"`
	// Attachments describe the images and documents the message carried,
	// by reference only: the bytes are never stored, because session files
	// are not redacted and resending stored media would bill it again on
	// every later turn. Nil means none; sessions written before the field
	// existed load unchanged.
	Attachments []AttachmentRef `json:"attachments,omitempty"`
}

// Attachment kinds an [AttachmentRef] can carry.
const (
	AttachmentImage = "image"
	AttachmentPDF   = "pdf"
)

// AttachmentRef records that a message carried an attachment without
// keeping its bytes: enough to tell the model later that something was
// there, and to recognise the same file if it is sent again.
type AttachmentRef struct {
	// Kind is AttachmentImage or AttachmentPDF.
	Kind string `json:"kind"`
	// Type is the MIME type decided from the bytes, such as "image/png".
	Type string `json:"type"`
	// Size is the length of the attachment in bytes.
	Size int64 `json:"size"`
	// SHA256 is the hex SHA-256 of the bytes.
	SHA256 string `json:"sha256"`
	// Label is the file name the sender gave, for display; empty means
	// none was given.
	Label string `json:"label,omitempty"`
}

// KindCompaction is the Message.Kind of a compaction record: a summary of
// the messages that were moved to the session's history archive. It is kept
// at index 0 of the session.
const KindCompaction = "compaction"

// ToolCall is a tool invocation requested by an assistant Message.
type ToolCall struct {
	// ID identifies the call; the tool's answer carries it as ToolCallID.
	ID string `json:"id"`
	// Name is the tool to run.
	Name string `json:"name"`
	// Arguments is the JSON-encoded argument object, kept as the model
	// produced it because models sometimes emit JSON that does not parse.
	Arguments string `json:"arguments"`
}

// Session is the conversation history for one session key.
//
// A Session is a plain value: it is not safe for concurrent use, and changes
// to it reach disk only through Store.Save. Callers that modify a session
// over a whole turn should hold Store.Lock for its key.
type Session struct {
	// Key is the session key, such as "telegram:12345"; see ValidateKey.
	Key string
	// Messages is the history, oldest first. Nil means no messages.
	Messages []Message
	// Created is when the session began: the time of the first message that
	// has one, or else the file's modification time. It is zero for a
	// session that has never been saved; Save fills it in.
	Created time.Time
	// Updated is when the session was last saved, taken from the file's
	// modification time on Load and set by Save. Zero means never saved.
	Updated time.Time
}

// MaxLineBytes bounds the size of one stored message line. Load treats a
// longer line as unreadable, so that a damaged file without newlines cannot
// make it buffer unbounded data, and Save refuses to write one.
const MaxLineBytes = 16 << 20

// Store keeps sessions as JSONL files, one file per session key and one
// Message per line, in a single directory.
//
// All methods are safe for concurrent use by multiple goroutines. A write
// either replaces the file (a temporary file, then a rename) or, when it
// only adds messages, appends to it, both under an advisory lock that Load
// takes too, so a reader never sees a partially written session, even
// across processes. Load, Save and Append
// take that lock, shared with other processes (on Unix), so two
// processes appending to one session both keep their messages. A caller
// that holds a session across a whole turn and then saves it holds the turn
// lock (see Lock), which is shared across processes too.
//
// Use NewStore to create a Store; the zero Store has no directory and its
// file methods return an error.
type Store struct {
	dir   string
	turns keyedMutex // held by callers across a turn; see Lock
	files keyedMutex // held by Store methods around file access for one key
	cache *sessionCache
	// ranges is the shared lock file where locks are byte ranges.
	ranges rangeLocks
	// counts holds finished turns not yet written to their sidecars.
	counts turnCounts
	// wrapWriter, when set, stands between the store and every file it
	// writes; tests use it to fill the disk.
	wrapWriter func(name string, w io.Writer) io.Writer
	// synced, when set, is told of each file replaceFile syncs (tests).
	synced func(path string)
}

var errNoDir = errors.New("memory: Store has no directory; create it with NewStore")

// NewStore returns a Store that keeps its sessions in dir, creating dir (and
// its parents) if needed. Session history is private, so dir is given mode
// 0700, also when it already existed with looser permissions. Temporary
// files that an interrupted write left in dir more than a minute ago are
// removed.
func NewStore(dir string) (*Store, error) {
	if dir == "" {
		return nil, errors.New("memory: new store: directory is empty")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, errorf("memory: new store %q: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return nil, errorf("memory: new store: %w", err)
	}
	if err := os.Chmod(abs, 0o700); err != nil {
		return nil, errorf("memory: new store: %w", err)
	}
	// Writes are temp file plus rename; a process killed in between
	// leaves its temp file, which nothing else would ever remove.
	sweepTemp(abs, filepath.Join(abs, sweepMarker))
	return &Store{dir: abs, cache: newSessionCache()}, nil
}

// Dir returns the absolute directory holding the session files, or "" for
// the zero Store.
func (s *Store) Dir() string { return s.dir }

// Path returns the file that holds the session for key, whether or not it
// exists yet. It fails if key is not valid (see ValidateKey), so the result
// is always a plain file directly inside Dir.
func (s *Store) Path(key string) (string, error) {
	if s.dir == "" {
		return "", errNoDir
	}
	if err := ValidateKey(key); err != nil {
		return "", err
	}
	return filepath.Join(s.dir, keyStem(key)+".jsonl"), nil
}

// Keys returns the keys of all stored sessions in sorted order. Files in the
// directory that no valid key maps to are ignored.
func (s *Store) Keys() ([]string, error) {
	if s.dir == "" {
		return nil, errNoDir
	}
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, errorf("memory: list sessions: %w", err)
	}
	var keys []string
	for _, e := range entries {
		stem, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if !ok || !e.Type().IsRegular() {
			continue
		}
		if key, ok := keyFromStem(stem); ok {
			keys = append(keys, key)
		}
	}
	slices.Sort(keys)
	return keys, nil
}

// Lock blocks until the caller holds the turn lock for key, or ctx is done,
// and returns the function that releases it. Holding it from Load to the
// final Save of a turn stops two turns of the same session from
// interleaving and one overwriting the other's messages.
//
// The lock is shared by every Store on the same directory, in this process
// and in others: goroutines queue on an in-process mutex, processes on an
// advisory lock in the hidden file TurnLockPath(key) in Dir (on Linux a
// byte of one file shared by every session, locked with an
// open-file-description lock, so a new session's first turn creates no
// lock file; elsewhere a file per session, locked with flock).
// The zero Store, which has no directory, locks within the process only.
// It is not reentrant, and Load, Save, Append and Compact do not take it
// themselves, so they may be called while it is held. On failure (ctx done,
// an invalid key, the lock file not opening) nothing is held and the error
// says why. Calling unlock more than once is harmless. Memory for a key's
// lock is released once nobody holds or waits for it.
func (s *Store) Lock(ctx context.Context, key string) (unlock func(), err error) {
	inproc, err := s.turns.lockCtx(ctx, key)
	if err != nil {
		return nil, errorf("memory: lock session %q: %w", key, err)
	}
	if s.dir == "" {
		return inproc, nil
	}
	if err := ValidateKey(key); err != nil {
		inproc()
		return nil, err
	}
	release, err := s.lockRange(ctx, key, turnLock)
	if err != nil {
		inproc()
		return nil, errorf("memory: lock session %q: %w", key, err)
	}
	var once sync.Once
	return func() { once.Do(func() { release(); inproc() }) }, nil
}

// TurnLockPath returns the lock file that [Store.Lock] locks for key, a
// hidden file in Dir, beside the sessions, never inside a workspace that
// tools can write. On Linux it is the one file whose bytes stand for every
// session's locks (the same path for every key); elsewhere a file per
// session, which stays after Remove: a process may be waiting on it, and
// deleting a lock file others wait on would let one holder in on the old
// file and another on the new.
func (s *Store) TurnLockPath(key string) (string, error) {
	if s.dir == "" {
		return "", errNoDir
	}
	if err := ValidateKey(key); err != nil {
		return "", err
	}
	return s.turnLockFile(key), nil
}

// Load reads the session for key. A session that has never been saved is
// returned as an empty Session with only Key set, not as an error.
//
// A Store remembers the decoded messages of the sessions it last saved or
// loaded (up to 16, and 2 MiB of files); when the file's bytes are the same
// as then (same length and 64-bit hash, whoever wrote it), Load returns a
// copy of them instead of decoding every line again.
//
// Load tolerates damage: a line that is not valid UTF-8, does not decode as
// a Message, has no role, or is longer than MaxLineBytes (such as a line
// torn by a crash) is skipped. Its exact bytes are appended to the file
// Path(key)+".corrupt" (mode 0600, followed by a newline if the line had
// none), the session file is rewritten without it so that it is quarantined
// only once, and one warning is logged through log/slog. Blank lines are
// ignored. Only failures to open or read the file are returned as errors.
func (s *Store) Load(key string) (*Session, error) {
	path, err := s.Path(key)
	if err != nil {
		return nil, err
	}
	// A session that does not exist yet needs no lock: files only ever
	// appear by an atomic rename, so this is the same answer a reader
	// holding the lock would get just before that rename. It spares the
	// first turn of every conversation the lock file's creation.
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return &Session{Key: key}, nil
	}
	unlock, err := s.lockKey(key)
	if err != nil {
		return nil, errorf("memory: load session %q: %w", key, err)
	}
	defer unlock()
	sess, err := s.load(key, path)
	if err != nil {
		return nil, errorf("memory: load session %q: %w", key, err)
	}
	return sess, nil
}

// Save replaces the stored session sess.Key with sess.Messages.
//
// The file is written atomically: the messages go to a new temporary file
// (mode 0600) in the same directory, which is flushed to stable storage and
// then renamed over the old file, and the directory is synced so the rename
// itself survives a crash. On failure the old file is left untouched and the
// temporary file is removed. When the file is exactly what this Store last
// wrote or read and sess only adds messages to it, they are appended and
// the file synced instead (see the package documentation for what a crash
// leaves); a failed append is cut off again.
//
// On success Save sets sess.Updated to the current time and, if it was zero,
// sess.Created to the first message's time (or the current time). Save fails
// if sess is nil, its key is invalid, or a message encodes to more than
// MaxLineBytes.
func (s *Store) Save(sess *Session) error {
	return s.store(sess, true)
}

// Stage writes sess exactly as [Store.Save] does, atomically and under the
// same locks, but without waiting for the disk: the new file survives the
// process being killed at any moment, though not a power cut before the
// kernel writes it back. It exists for the write at the start of a turn,
// which must not hold up the model's first token; the durable Save at the
// end of the turn then covers the whole exchange.
func (s *Store) Stage(sess *Session) error {
	return s.store(sess, false)
}

func (s *Store) store(sess *Session, durable bool) error {
	if sess == nil {
		return errors.New("memory: save session: nil session")
	}
	path, err := s.Path(sess.Key)
	if err != nil {
		return err
	}
	unlock, err := s.lockKey(sess.Key)
	if err != nil {
		return errorf("memory: save session %q: %w", sess.Key, err)
	}
	defer unlock()
	if err := s.save(sess, path, durable); err != nil {
		return errorf("memory: save session %q: %w", sess.Key, err)
	}
	return nil
}

// Append adds msgs to the stored session for key and returns the updated
// session. Messages with a zero Time are stamped with the current time.
//
// Append is atomic with respect to other Load, Save and Append calls on the
// same Store, so concurrent Appends never lose messages. It does not take
// the turn lock (see Lock); a turn that loads a session, works on it and
// saves it should hold that lock, or its Save may overwrite messages that
// Append added in between.
func (s *Store) Append(key string, msgs ...Message) (*Session, error) {
	path, err := s.Path(key)
	if err != nil {
		return nil, err
	}
	unlock, err := s.lockKey(key)
	if err != nil {
		return nil, errorf("memory: append to session %q: %w", key, err)
	}
	defer unlock()
	sess, err := s.load(key, path)
	if err != nil {
		return nil, errorf("memory: append to session %q: %w", key, err)
	}
	now := time.Now()
	for _, m := range msgs {
		if m.Time.IsZero() {
			m.Time = now
		}
		sess.Messages = append(sess.Messages, m)
	}
	if err := s.save(sess, path, true); err != nil {
		return nil, errorf("memory: append to session %q: %w", key, err)
	}
	return sess, nil
}

// lockKey serializes file access for key: first among the goroutines of
// this Store, then among processes through an advisory lock on a hidden
// per-session lock file. The key must already be valid.
func (s *Store) lockKey(key string) (unlock func(), err error) {
	inproc := s.files.lock(key)
	release, err := s.lockRange(context.Background(), key, fileLock)
	if err != nil {
		inproc()
		return nil, err
	}
	return func() { release(); inproc() }, nil
}

// save writes sess to path, synced to disk when durable; the caller holds
// the file lock for sess.Key.
func (s *Store) save(sess *Session, path string, durable bool) error {
	if s.cache != nil {
		if done, err := s.saveByAppend(sess, path, durable); done || err != nil {
			if err == nil {
				s.stamp(sess)
			}
			return err
		}
	}
	var line bytes.Buffer
	enc := json.NewEncoder(&line)
	// Message text is shown to people and models, not embedded in HTML, so
	// escaping <, > and & would only make the files harder to read.
	enc.SetEscapeHTML(false)
	// The written bytes are hashed on the way, so that the next Load of
	// an unchanged file can take the messages from the cache.
	var sum maphash.Hash
	size := 0
	if s.cache != nil {
		sum.SetSeed(s.cache.seed)
	}
	fill := func(w *bufio.Writer) error {
		for i := range sess.Messages {
			line.Reset()
			if err := encodeLine(&line, enc, &sess.Messages[i]); err != nil {
				return errorf("encode message %d: %w", i, err)
			}
			if line.Len() > MaxLineBytes {
				return errorf("message %d encodes to %d bytes, more than MaxLineBytes (%d)", i, line.Len(), MaxLineBytes)
			}
			if _, err := w.Write(line.Bytes()); err != nil {
				return err
			}
			sum.Write(line.Bytes())
			size += line.Len()
		}
		return nil
	}
	var file fileStamp
	var err error
	if durable {
		file, err = s.writeAtomic(path, fill)
	} else {
		file, err = s.replaceFile(path, false, false, fill)
	}
	if err != nil {
		if s.cache != nil {
			s.cache.drop(sess.Key)
		}
		return err
	}
	if s.cache != nil {
		if msgs, ok := asDecoded(sess.Messages); ok {
			s.cache.putState(sess.Key, &sum, size, msgs, file, durable)
		} else {
			s.cache.drop(sess.Key)
		}
	}
	s.stamp(sess)
	return nil
}

// stamp sets sess's times after a save.
func (s *Store) stamp(sess *Session) {
	now := time.Now()
	if sess.Created.IsZero() {
		sess.Created = firstTime(sess.Messages, now)
	}
	sess.Updated = now
}

// saveByAppend saves sess by appending to its file, when the file is
// exactly what this Store last wrote or read (same inode, size and time,
// so no other writer has touched it) and those bytes are the encoding of
// sess's first messages: the common case of a turn, which only adds
// messages. It costs a write (and a sync when durable) where a rewrite
// costs a new file, its sync, a rename and a directory sync. A session
// cut, compacted or otherwise changed is rewritten whole (done false).
//
// An append is not atomic as a rename is: a process killed in the middle
// of the write, or a power cut before a durable append's sync, may leave
// a torn last line, which Load skips and quarantines, so the session
// reads as it was before the save. A failed write is truncated away.
func (s *Store) saveByAppend(sess *Session, path string, durable bool) (done bool, err error) {
	base, ok := s.cache.base(sess.Key)
	n := len(base.msgs)
	if !ok || n > len(sess.Messages) {
		return false, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	encode := func(msgs []Message) bool {
		for i := range msgs {
			start := buf.Len()
			if encodeLine(&buf, enc, &msgs[i]) != nil || buf.Len()-start > MaxLineBytes {
				return false // the rewrite reports it
			}
		}
		return true
	}
	var tail []byte
	var decoded []Message
	var state maphash.Hash
	if base.hasState && sameMessages(sess.Messages[:n], base.msgs) {
		// The file holds these very messages: only the new ones are
		// encoded and hashed, so a turn costs the same however long
		// the session has grown.
		added, ok := asDecoded(sess.Messages[n:])
		if !ok || !encode(sess.Messages[n:]) {
			return false, nil
		}
		tail = buf.Bytes()
		decoded = append(slices.Clip(base.msgs), added...)
		state = base.state
		state.Write(tail)
	} else {
		// Otherwise the file's bytes must be the encoding of the first
		// messages, checked by hashing them again.
		if decoded, ok = asDecoded(sess.Messages); !ok {
			return false, nil
		}
		if !encode(sess.Messages[:n]) {
			return false, nil
		}
		prefix := buf.Len()
		if !encode(sess.Messages[n:]) {
			return false, nil
		}
		all := buf.Bytes()
		if prefix != base.size || s.cache.sum(all[:prefix]) != base.sum {
			return false, nil
		}
		tail = all[prefix:]
		state.SetSeed(s.cache.seed)
		state.Write(all)
	}
	size := base.size
	f, err := sysfile.Open(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return false, nil
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || stampOf(info) != base.file {
		return false, nil
	}
	fail := func(err error) (bool, error) {
		// Whatever part of the tail was written is cut off again, and
		// the next save rewrites the file whole.
		_ = f.Truncate(int64(size))
		s.cache.drop(sess.Key)
		return true, err
	}
	if len(tail) > 0 {
		if _, err := s.writerFor(path, f).Write(tail); err != nil {
			return fail(err)
		}
	}
	if durable {
		if err := f.Sync(); err != nil {
			return fail(err)
		}
		if !base.dirSynced {
			// The file came from a rename not yet synced (a Stage).
			if err := atomicfile.SyncDir(filepath.Dir(path)); err != nil {
				s.cache.drop(sess.Key)
				return true, err
			}
		}
	}
	info, err := f.Stat()
	if err != nil {
		s.cache.drop(sess.Key)
		return true, nil
	}
	s.cache.putState(sess.Key, &state, size+len(tail), decoded, stampOf(info), durable || base.dirSynced)
	return true, nil
}

// writeAtomic replaces path with the bytes that fill writes, durably.
func (s *Store) writeAtomic(path string, fill func(*bufio.Writer) error) (fileStamp, error) {
	return s.replaceFile(path, true, true, fill)
}

// replaceFile replaces path with the bytes that fill writes and returns
// the stamp of the new file. The new file is synced before the rename, so
// a crash leaves the old or the new bytes,
// never a torn file; syncDir also syncs the directory so the rename itself
// survives a crash. Without it a crash may bring back the previous version,
// which is acceptable for data that is merely stale when old, like counters.
// syncFile false skips even the file's sync: the rename is still atomic for
// every reader and survives the process dying, only not a power cut.
//
// The durable case (both true) is package atomicfile's guarantee, through
// its code; the lighter ones are the store's own trade-offs.
func (s *Store) replaceFile(path string, syncFile, syncDir bool, fill func(*bufio.Writer) error) (file fileStamp, err error) {
	// Create picks a fresh random name per call, so concurrent writers
	// never share a temporary file, and the leading dot keeps leftovers of
	// a crash out of directory listings.
	tmp, err := atomicfile.Create(s.dir, filepath.Base(path), 0o600)
	if err != nil {
		return file, err
	}
	// Discard is a no-op once committed; after a plain rename it must not
	// run either (a remove of a name that is gone, a wasted system call
	// per turn).
	renamed := false
	defer func() {
		if !renamed {
			tmp.Discard()
		}
	}()
	w := fileWriters.Get().(*bufio.Writer)
	w.Reset(s.writerFor(tmp.Name(), tmp))
	err = fill(w)
	if err == nil {
		err = w.Flush()
	}
	w.Reset(nil)
	fileWriters.Put(w)
	if err != nil {
		return file, err
	}
	// The rename keeps the inode, and nothing writes after this.
	if info, err := tmp.Stat(); err == nil {
		file = stampOf(info)
	}
	if syncFile && s.synced != nil {
		s.synced(path)
	}
	if syncFile && syncDir {
		return file, tmp.Commit(path)
	}
	if syncFile {
		if err := tmp.Sync(); err != nil {
			return file, err
		}
	}
	if err := tmp.Close(); err != nil {
		return file, err
	}
	if err := sysfile.Rename(tmp.Name(), path); err != nil {
		return file, err
	}
	renamed = true
	return file, nil
}

// fileWriters holds the 64 KiB buffers replaceFile writes through: every
// turn stages its session file, and a buffer made per write was a third
// of what a served turn allocated.
var fileWriters = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, 64<<10) }}

// writerFor is w, through the test's fault injection when there is one.
func (s *Store) writerFor(name string, w io.Writer) io.Writer {
	if s.wrapWriter != nil {
		return s.wrapWriter(name, w)
	}
	return w
}

func firstTime(msgs []Message, fallback time.Time) time.Time {
	for _, m := range msgs {
		if !m.Time.IsZero() {
			return m.Time
		}
	}
	return fallback
}

// copyRange copies bytes [start, end) of r to w.
func copyRange(w io.Writer, r io.ReaderAt, start, end int64) error {
	_, err := io.Copy(w, io.NewSectionReader(r, start, end-start))
	return err
}
