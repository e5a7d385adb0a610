package memory

import (
	"bufio"
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Meta is what a session keeps beside its messages, in the sidecar file
// Path(key) with ".jsonl" replaced by ".meta.json". The zero Meta means no
// overrides and nothing counted yet.
type Meta struct {
	// ModelOverride is the model chosen for this session alone; empty means
	// the configured default.
	ModelOverride string `json:"model_override,omitempty"`
	// Personality is the personality chosen for this session; empty means
	// the default.
	Personality string `json:"personality,omitempty"`
	// Agent is the agent profile chosen for this session with /agent;
	// empty means the default agent.
	Agent string `json:"agent,omitempty"`
	// Turns counts completed turns, for a program that keeps the count.
	//
	// Deprecated: the agent no longer maintains it (nothing read it, and
	// writing it made a sidecar file for every session); count a
	// session's user messages instead.
	Turns int `json:"turns,omitempty"`
	// Compactions counts how often the session was compacted.
	Compactions int `json:"compactions,omitempty"`
	// ArchivedMessages counts messages moved to the history archive.
	ArchivedMessages int `json:"archived_messages,omitempty"`
	// LastCompaction is when the session was last compacted; zero means
	// never.
	LastCompaction time.Time `json:"last_compaction,omitzero"`
}

// MetaPath returns the sidecar file of key's session.
func (s *Store) MetaPath(key string) (string, error) {
	if s.dir == "" {
		return "", errNoDir
	}
	if err := ValidateKey(key); err != nil {
		return "", err
	}
	return filepath.Join(s.dir, keyStem(key)+".meta.json"), nil
}

// LoadMeta reads the sidecar of key's session. A missing sidecar is the zero
// Meta. A sidecar that is not a JSON object of the expected shape is moved
// to the same name plus ".corrupt" (appended to it if that exists), one
// warning is logged, and the zero Meta is returned: a broken sidecar must not
// lock a user out of their conversation.
func (s *Store) LoadMeta(key string) (*Meta, error) {
	path, err := s.MetaPath(key)
	if err != nil {
		return nil, err
	}
	// Sidecars are only ever replaced by an atomic rename, so one that
	// reads whole and parses needs no lock; a turn reads its session's
	// sidecar while the session file is being written, and must not wait
	// for that. Only a sidecar that fails to read or parse takes the lock,
	// since quarantining it moves it.
	if b, err := os.ReadFile(path); errors.Is(err, fs.ErrNotExist) {
		return &Meta{Turns: s.counts.pending(key)}, nil
	} else if err == nil {
		var m Meta
		if json.Unmarshal(b, &m) == nil {
			m.Turns += s.counts.pending(key)
			return &m, nil
		}
	}
	unlock, err := s.lockKey(key)
	if err != nil {
		return nil, errorf("memory: load meta %q: %w", key, err)
	}
	defer unlock()
	m, err := s.loadMeta(key, path)
	if err != nil {
		return nil, errorf("memory: load meta %q: %w", key, err)
	}
	m.Turns += s.counts.pending(key)
	return m, nil
}

// UpdateMeta applies fn to the sidecar of key's session and saves the result
// atomically, all under the session's file lock, so concurrent updates (one
// bumping a counter, another setting a model) never lose each other.
//
// An update that only adds to Turns (a finished turn) is counted in memory
// and written with the session's next other update, or once
// [MetaTurnsBatch] turns are pending, or by [Store.FlushMeta]: writing a
// sidecar means a new file, a sync and a rename, which cost more CPU than
// the rest of a served turn together. LoadMeta and UpdateMeta on this
// Store see the pending turns; a process killed before FlushMeta loses
// them from the count (nothing else in the sidecar is delayed).
func (s *Store) UpdateMeta(key string, fn func(*Meta)) error {
	return s.updateMeta(key, fn, false)
}

// MetaTurnsBatch is how many finished turns of one session [Store.UpdateMeta]
// counts in memory before it writes them.
const MetaTurnsBatch = 16

// FlushMeta writes the turns counted in memory to every sidecar they
// belong to. Call it before the process exits, after the last turn.
func (s *Store) FlushMeta() error {
	var errs []error
	for _, key := range s.counts.keys() {
		if err := s.updateMeta(key, func(*Meta) {}, true); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (s *Store) updateMeta(key string, fn func(*Meta), flush bool) error {
	path, err := s.MetaPath(key)
	if err != nil {
		return err
	}
	unlock, err := s.lockKey(key)
	if err != nil {
		return errorf("memory: update meta %q: %w", key, err)
	}
	defer unlock()
	m, err := s.loadMeta(key, path)
	if err != nil {
		return errorf("memory: update meta %q: %w", key, err)
	}
	pending := s.counts.pending(key)
	m.Turns += pending
	before := *m
	fn(m)
	if added := m.Turns - before.Turns; !flush && added > 0 && turnsOnly(before, *m) &&
		s.counts.add(key, added, MetaTurnsBatch) {
		return nil
	}
	if !flush && *m == before && pending == 0 {
		return nil // nothing changed
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return errorf("memory: update meta %q: %w", key, err)
	}
	b = append(b, '\n')
	// The sidecar is small and an older version of it is still valid, so
	// the directory sync (a second flush per turn) is skipped. A sidecar
	// that held and holds nothing but the turn count (a one-shot turn's
	// flush) is not synced either: a power cut can cost only that count
	// (a torn file is quarantined by LoadMeta), and the sync cost a
	// one-shot turn a millisecond or more.
	countOnly := turnsOnly(Meta{}, before) && turnsOnly(Meta{}, *m)
	_, err = s.replaceFile(path, !countOnly, false, func(w *bufio.Writer) error {
		_, err := w.Write(b)
		return err
	})
	if err != nil {
		return errorf("memory: update meta %q: %w", key, err)
	}
	s.counts.clear(key, pending)
	return nil
}

// turnsOnly reports whether after differs from before in Turns alone.
func turnsOnly(before, after Meta) bool {
	after.Turns = before.Turns
	return before == after
}

// turnCounts holds the finished turns [Store.UpdateMeta] has not written
// yet, by session key. It holds at most maxPendingSessions sessions, so a
// process serving many conversations does not grow it without bound: past
// that, updates are written at once.
type turnCounts struct {
	mu sync.Mutex
	n  map[string]int
}

// maxPendingSessions bounds the sessions with turns counted in memory.
const maxPendingSessions = 1024

func (c *turnCounts) pending(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[key]
}

// add counts n more turns of key and reports true, or reports false when
// they are to be written now: the batch is full or there is no room.
func (c *turnCounts) add(key string, n, batch int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	cur, ok := c.n[key]
	if cur+n >= batch || (!ok && len(c.n) >= maxPendingSessions) {
		return false
	}
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[key] = cur + n
	return true
}

// clear forgets the written turns of key: written of them, as more may
// have been counted meanwhile by another goroutine (not under the same
// file lock, which every caller holds, so in practice none).
func (c *turnCounts) clear(key string, written int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n[key] <= written {
		delete(c.n, key)
		return
	}
	c.n[key] -= written
}

func (c *turnCounts) keys() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, 0, len(c.n))
	for k := range c.n {
		out = append(out, k)
	}
	return out
}

func (s *Store) loadMeta(key, path string) (*Meta, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Meta{}, nil
	}
	if err != nil {
		return nil, err
	}
	var m Meta
	if err := json.Unmarshal(b, &m); err != nil {
		s.quarantineMeta(key, path, b, err)
		return &Meta{}, nil
	}
	return &m, nil
}

// quarantineMeta moves an unreadable sidecar's bytes aside.
func (s *Store) quarantineMeta(key, path string, b []byte, cause error) {
	corrupt := path + ".corrupt"
	f, err := os.OpenFile(corrupt, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err == nil {
		_, err = f.Write(append(b, '\n'))
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		slog.Warn("memory: session metadata is unreadable and could not be preserved; using defaults and leaving the file",
			"session", key, "file", path, "cause", cause, "err", err)
		return
	}
	if err := os.Remove(path); err != nil {
		slog.Warn("memory: session metadata is unreadable; preserved it but could not remove it",
			"session", key, "quarantine", corrupt, "cause", cause, "err", err)
		return
	}
	slog.Warn("memory: session metadata is unreadable; using defaults",
		"session", key, "quarantine", corrupt, "cause", cause)
}
