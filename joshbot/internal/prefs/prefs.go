// Package prefs stores each conversation's /model, /personality and /agent
// choices in one JSON file, so they survive a restart.
//
// It implements agent.SessionPrefs. It is deliberately separate from the
// session transcripts: when the memory module's per-session metadata
// sidecar carries these fields, the binary can hand the agent that instead
// and this package goes away without touching the agent.
package prefs

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/joshbot/internal/config"
)

// File is a file-backed agent.SessionPrefs: a JSON object from session key
// to prefs, rewritten atomically with mode 0600 on every change. It is safe
// for concurrent use within one process. The zero value is not usable; call
// [Open].
type File struct {
	path string
	mu   sync.Mutex
	m    map[string]agent.Prefs
}

var _ agent.SessionPrefs = (*File)(nil)

// Open reads path; a missing file is empty. A file that does not parse is
// an error naming it, rather than being overwritten: it holds choices the
// user made.
func Open(path string) (*File, error) {
	f := &File{path: path, m: map[string]agent.Prefs{}}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return nil, fmt.Errorf("session preferences: %w", err)
	}
	if len(data) > 0 {
		if err := json.Unmarshal(data, &f.m); err != nil {
			return nil, fmt.Errorf("session preferences %s do not parse (%v): fix or remove the file; it only holds /model and /personality choices", path, err)
		}
	}
	return f, nil
}

// Get returns the prefs of sessionKey; the zero Prefs when none are stored.
func (f *File) Get(sessionKey string) (agent.Prefs, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.m[sessionKey], nil
}

// Set stores p for sessionKey (the zero Prefs removes it) and writes the
// file. On a write failure the stored state is unchanged.
func (f *File) Set(sessionKey string, p agent.Prefs) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	old, had := f.m[sessionKey]
	if p == (agent.Prefs{}) {
		if !had {
			return nil
		}
		delete(f.m, sessionKey)
	} else {
		f.m[sessionKey] = p
	}
	data, err := json.MarshalIndent(f.m, "", "  ")
	if err == nil {
		err = config.WriteFileAtomic(f.path, append(data, '\n'))
	}
	if err != nil {
		if had {
			f.m[sessionKey] = old
		} else {
			delete(f.m, sessionKey)
		}
		return fmt.Errorf("save session preferences: %w", err)
	}
	return nil
}
