// Package tuning adjusts per-operation timeouts from experience. Each
// operation (a web tool) records a timeout or a success; after enough
// timeouts its budget is raised by one step, up to a cap, with a cooldown
// between changes, and after a long run of successes a raise is taken back
// a step at a time. The raises live in an overlay file that the next start
// adds onto the configured budgets; every outcome is also appended to an
// events log an operator can read.
//
// A Tuner is safe for concurrent use. Separate processes sharing one
// directory append to the same log; the overlay is replaced atomically,
// and the last writer wins.
package tuning

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/joshbot/joshbot/memory/atomicfile"
)

// File names under the tuning directory (the joshbot home).
const (
	EventsFile  = "tuning_events.jsonl"
	OverlayFile = "tuning_overlay.json"
)

// The outcomes an operation records.
const (
	Timeout = "timeout"
	Success = "success"
)

// Options configure a [Tuner]; nil means the defaults.
type Options struct {
	// MaxBump caps the raise of one operation; zero means 30s.
	MaxBump time.Duration
	// Step is one raise or lowering; zero means 5s.
	Step time.Duration
	// Cooldown is the least time between two changes of one operation;
	// zero means 1h.
	Cooldown time.Duration
	// Timeouts is how many timeouts since the last change earn a raise;
	// zero means 3.
	Timeouts int
	// Successes is how many successes in a row, with no timeout, take a
	// step back; zero means 50.
	Successes int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Event is one line of the events log.
type Event struct {
	Op      string    `json:"op"`
	Outcome string    `json:"outcome"`
	At      time.Time `json:"at"`
}

// State is one operation's entry in the overlay.
type State struct {
	// BumpMS is the raise in milliseconds, added to the configured budget.
	BumpMS int64 `json:"bump_ms"`
	// ChangedAt is the last change; zero when there has been none.
	ChangedAt time.Time `json:"changed_at,omitzero"`
	// Timeouts and Successes count outcomes since the last change;
	// Successes counts only the unbroken run since the last timeout.
	Timeouts  int `json:"timeouts"`
	Successes int `json:"successes"`
}

// Bump is the raise as a duration.
func (s State) Bump() time.Duration { return time.Duration(s.BumpMS) * time.Millisecond }

type overlay struct {
	SchemaVersion int              `json:"schema_version"`
	Operations    map[string]State `json:"operations"`
}

// Tuner records outcomes and keeps the overlay.
type Tuner struct {
	dir  string
	opts Options

	mu  sync.Mutex
	ops map[string]State
}

// Open reads the overlay in dir, if any. A corrupt overlay is an error
// naming the file and how to start over (`joshbot tuning reset`).
func Open(dir string, opts *Options) (*Tuner, error) {
	o := Options{}
	if opts != nil {
		o = *opts
	}
	if o.MaxBump <= 0 {
		o.MaxBump = 30 * time.Second
	}
	if o.Step <= 0 {
		o.Step = 5 * time.Second
	}
	if o.Cooldown <= 0 {
		o.Cooldown = time.Hour
	}
	if o.Timeouts <= 0 {
		o.Timeouts = 3
	}
	if o.Successes <= 0 {
		o.Successes = 50
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	t := &Tuner{dir: dir, opts: o, ops: map[string]State{}}
	data, err := os.ReadFile(filepath.Join(dir, OverlayFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return t, nil
	case err != nil:
		return nil, errorf("tuning overlay: %w", err)
	}
	var ov overlay
	if err := json.Unmarshal(data, &ov); err != nil {
		return nil, errorf("tuning overlay %s is not valid JSON (%v): run `joshbot tuning reset` to start over", filepath.Join(dir, OverlayFile), err)
	}
	for op, s := range ov.Operations {
		// An overlay from a run with a larger cap is held to this one.
		s.BumpMS = min(max(s.BumpMS, 0), o.MaxBump.Milliseconds())
		t.ops[op] = s
	}
	return t, nil
}

// Bump returns the raise to add to op's configured budget.
func (t *Tuner) Bump(op string) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.ops[op].Bump()
}

// Snapshot returns every operation with a record, by name.
func (t *Tuner) Snapshot() (names []string, states []State) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for n := range t.ops {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		states = append(states, t.ops[n])
	}
	return names, states
}

// Record appends an outcome of op to the log and applies the rule; a
// change is written to the overlay for the next start.
func (t *Tuner) Record(op, outcome string) error {
	if outcome != Timeout && outcome != Success {
		return errorf("tuning: outcome %q is neither %s nor %s", outcome, Timeout, Success)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.opts.Now().UTC()
	if err := t.appendEvent(Event{Op: op, Outcome: outcome, At: now}); err != nil {
		return err
	}
	s := t.ops[op]
	if outcome == Timeout {
		s.Timeouts++
		s.Successes = 0
	} else {
		s.Successes++
	}
	cooled := s.ChangedAt.IsZero() || now.Sub(s.ChangedAt) >= t.opts.Cooldown
	step, maxMS := t.opts.Step.Milliseconds(), t.opts.MaxBump.Milliseconds()
	changed := false
	switch {
	case s.Timeouts >= t.opts.Timeouts && s.BumpMS < maxMS && cooled:
		s.BumpMS = min(s.BumpMS+step, maxMS)
		changed = true
	case s.Successes >= t.opts.Successes && s.BumpMS > 0 && cooled:
		s.BumpMS = max(s.BumpMS-step, 0)
		changed = true
	}
	if changed {
		s.ChangedAt, s.Timeouts, s.Successes = now, 0, 0
	}
	t.ops[op] = s
	return t.saveOverlay()
}

func (t *Tuner) appendEvent(ev Event) error {
	if err := os.MkdirAll(t.dir, 0o700); err != nil {
		return errorf("tuning: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(t.dir, EventsFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return errorf("tuning events: %w", err)
	}
	b, _ := json.Marshal(ev)
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return errorf("tuning events: %w", err)
	}
	return f.Close()
}

func (t *Tuner) saveOverlay() error {
	b, err := json.MarshalIndent(overlay{SchemaVersion: 1, Operations: t.ops}, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(t.dir, OverlayFile), append(b, '\n'), 0o600); err != nil {
		return errorf("tuning overlay: %w", err)
	}
	return nil
}

// CountEvents returns how many timeouts and successes the log holds per
// operation. A malformed line is skipped.
func CountEvents(dir string) (map[string][2]int, error) {
	data, err := os.ReadFile(filepath.Join(dir, EventsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return map[string][2]int{}, nil
	}
	if err != nil {
		return nil, errorf("tuning events: %w", err)
	}
	out := map[string][2]int{}
	for _, line := range splitLines(data) {
		var ev Event
		if json.Unmarshal(line, &ev) != nil {
			continue
		}
		c := out[ev.Op]
		if ev.Outcome == Timeout {
			c[0]++
		} else if ev.Outcome == Success {
			c[1]++
		}
		out[ev.Op] = c
	}
	return out, nil
}

func splitLines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := 0
		for i < len(b) && b[i] != '\n' {
			i++
		}
		if i > 0 {
			out = append(out, b[:i])
		}
		if i < len(b) {
			i++
		}
		b = b[i:]
	}
	return out
}

// Reset removes the overlay and the events log, so every operation is
// back at its configured budget.
func Reset(dir string) error {
	for _, f := range []string{OverlayFile, EventsFile} {
		if err := os.Remove(filepath.Join(dir, f)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return errorf("tuning reset: %w", err)
		}
	}
	return nil
}
