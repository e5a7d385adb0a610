package memory

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
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
	// Turns counts completed turns.
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
		return &Meta{}, nil
	} else if err == nil {
		var m Meta
		if json.Unmarshal(b, &m) == nil {
			return &m, nil
		}
	}
	unlock, err := s.lockKey(key)
	if err != nil {
		return nil, fmt.Errorf("memory: load meta %q: %w", key, err)
	}
	defer unlock()
	m, err := s.loadMeta(key, path)
	if err != nil {
		return nil, fmt.Errorf("memory: load meta %q: %w", key, err)
	}
	return m, nil
}

// UpdateMeta applies fn to the sidecar of key's session and saves the result
// atomically, all under the session's file lock, so concurrent updates (one
// bumping a counter, another setting a model) never lose each other.
func (s *Store) UpdateMeta(key string, fn func(*Meta)) error {
	path, err := s.MetaPath(key)
	if err != nil {
		return err
	}
	unlock, err := s.lockKey(key)
	if err != nil {
		return fmt.Errorf("memory: update meta %q: %w", key, err)
	}
	defer unlock()
	m, err := s.loadMeta(key, path)
	if err != nil {
		return fmt.Errorf("memory: update meta %q: %w", key, err)
	}
	fn(m)
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("memory: update meta %q: %w", key, err)
	}
	b = append(b, '\n')
	// The sidecar is small and an older version of it is still valid, so
	// the directory sync (a second flush per turn) is skipped.
	_, err = s.replaceFile(path, true, false, func(w *bufio.Writer) error {
		_, err := w.Write(b)
		return err
	})
	if err != nil {
		return fmt.Errorf("memory: update meta %q: %w", key, err)
	}
	return nil
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
