// Package cron keeps joshbot's scheduled reminders and recurring jobs and
// runs them: a file-backed store the cron tool writes to, the record of
// the last chat per channel that deliveries go to, and a heartbeat that
// fires due jobs as agent turns.
//
// Scheduled turns have no human in them, so they run with no approver on
// their context: the approval gate denies every command that needs one.
package cron

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/memory/atomicfile"
	"github.com/joshbot/joshbot/tools"
)

// MaxJobsPerSession bounds how many jobs one conversation may hold, so a
// looping model cannot schedule without limit.
const MaxJobsPerSession = 50

// Store is a file-backed tools.CronStore: one JSON array, rewritten
// atomically with mode 0600 on every change. It is safe for concurrent use
// within one process.
type Store struct {
	path string
	mu   sync.Mutex
	jobs []tools.CronJob
}

var _ tools.CronStore = (*Store)(nil)

// OpenStore reads path; a missing file is an empty store. Temporary files
// an interrupted save left next to path more than a minute ago are
// removed. A file that does
// not parse is an error naming it and is left alone: it holds the user's
// reminders.
func OpenStore(path string) (*Store, error) {
	s := &Store{path: path}
	// A save killed between its temp file and the rename leaves the temp
	// file behind; nothing else would remove it.
	atomicfile.Sweep(filepath.Dir(path), time.Minute)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, errorf("cron: %w", err)
	}
	if len(data) > 0 {
		if err := json.Unmarshal(data, &s.jobs); err != nil {
			return nil, errorf("cron: %s does not parse (%v): fix or move the file; it holds the scheduled jobs", path, err)
		}
	}
	return s, nil
}

func (s *Store) saveLocked(jobs []tools.CronJob) error {
	sort.SliceStable(jobs, func(i, j int) bool { return jobs[i].Next.Before(jobs[j].Next) })
	data, err := json.MarshalIndent(jobs, "", "  ")
	if err != nil {
		return err
	}
	if err := config.WriteFileAtomic(s.path, append(data, '\n')); err != nil {
		return errorf("cron: save: %w", err)
	}
	s.jobs = jobs
	return nil
}

// Add implements tools.CronStore.
func (s *Store) Add(_ context.Context, job tools.CronJob) (tools.CronJob, error) {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return job, err
	}
	job.ID = hex.EncodeToString(b[:])
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, j := range s.jobs {
		if j.SessionKey == job.SessionKey {
			n++
		}
	}
	if n >= MaxJobsPerSession {
		return job, errorf("this conversation already has %d scheduled jobs, the limit; remove some first", n)
	}
	next := append(append([]tools.CronJob(nil), s.jobs...), job)
	return job, s.saveLocked(next)
}

// List implements tools.CronStore; an empty sessionKey lists every job.
func (s *Store) List(_ context.Context, sessionKey string) ([]tools.CronJob, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []tools.CronJob
	for _, j := range s.jobs {
		if sessionKey == "" || j.SessionKey == sessionKey {
			out = append(out, j)
		}
	}
	return out, nil
}

// Remove implements tools.CronStore; an empty sessionKey matches any
// session (the operator's CLI).
func (s *Store) Remove(_ context.Context, sessionKey, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, j := range s.jobs {
		if j.ID == id && (sessionKey == "" || j.SessionKey == sessionKey) {
			next := append(append([]tools.CronJob(nil), s.jobs[:i]...), s.jobs[i+1:]...)
			return s.saveLocked(next)
		}
	}
	return tools.ErrJobNotFound
}

// takeDue removes one-shot jobs due at or before now, advances recurring
// ones past now, persists that, and returns the jobs to fire. Persisting
// before firing means a crash mid-run skips one run rather than repeating a
// job on every restart; a recurring job that missed several runs while
// joshbot was down fires once, not once per missed run.
func (s *Store) takeDue(now time.Time) ([]tools.CronJob, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var fire []tools.CronJob
	next := make([]tools.CronJob, 0, len(s.jobs))
	for _, j := range s.jobs {
		if j.Next.After(now) {
			next = append(next, j)
			continue
		}
		fire = append(fire, j)
		if j.Every > 0 {
			for !j.Next.After(now) {
				j.Next = j.Next.Add(j.Every)
			}
			next = append(next, j)
		}
	}
	if len(fire) == 0 {
		return nil, nil
	}
	if err := s.saveLocked(next); err != nil {
		return nil, err
	}
	return fire, nil
}
