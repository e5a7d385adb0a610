package webhook

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/joshbot/joshbot/memory/atomicfile"
)

// DefaultReplayWindow is how long a delivery is remembered when
// Options.ReplayWindow is zero. GitHub redelivers on request for three
// days; a captured delivery replayed within the window is not run again.
const DefaultReplayWindow = 72 * time.Hour

// DefaultReplayEntries bounds the remembered deliveries when
// Options.ReplayEntries is zero; the oldest are forgotten first.
const DefaultReplayEntries = 20000

// ReplayFile is the name of the file in Options.StateDir that keeps the
// replay window across restarts.
const ReplayFile = "webhook_replay.json"

// replayEntry is one remembered delivery: the digest of what identifies it
// and when it was accepted.
type replayEntry struct {
	Key string `json:"k"`
	At  int64  `json:"t"` // Unix seconds
}

type replayDoc struct {
	Version int           `json:"version"`
	Entries []replayEntry `json:"entries"`
}

// replayGuard remembers accepted deliveries by delivery id and by the
// digest of their signed body. The signature covers the body but not the
// X-GitHub-Delivery header, so a captured delivery could otherwise be
// replayed under a fresh id and run again.
type replayGuard struct {
	path    string // "" keeps the window in memory only
	window  time.Duration
	max     int
	now     func() time.Time
	log     *slog.Logger
	mu      sync.Mutex
	seen    map[string]time.Time
	pending map[string]bool
}

func newReplayGuard(o *Options, log *slog.Logger) (*replayGuard, error) {
	g := &replayGuard{window: o.ReplayWindow, max: o.ReplayEntries, now: o.Now, log: log, seen: map[string]time.Time{}, pending: map[string]bool{}}
	if g.window <= 0 {
		g.window = DefaultReplayWindow
	}
	if g.max <= 0 {
		g.max = DefaultReplayEntries
	}
	if g.now == nil {
		g.now = time.Now
	}
	if o.StateDir == "" {
		return g, nil
	}
	if err := os.MkdirAll(o.StateDir, 0o700); err != nil {
		return nil, errorf("webhook state directory %s: %w", o.StateDir, err)
	}
	g.path = filepath.Join(o.StateDir, ReplayFile)
	data, err := os.ReadFile(g.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return g, nil
	case err != nil:
		return nil, errorf("webhook replay window %s: %w", g.path, err)
	}
	var doc replayDoc
	if err := json.Unmarshal(data, &doc); err != nil || doc.Version != 1 {
		// A damaged window is set aside, not trusted and not fatal: the
		// delivery id dedup of the router still holds.
		aside := g.path + ".corrupt"
		os.Rename(g.path, aside)
		log.Warn("webhook replay window unreadable; set aside and started empty", "file", g.path, "moved_to", aside)
		return g, nil
	}
	cutoff := g.now().Add(-g.window)
	for _, e := range doc.Entries {
		if at := time.Unix(e.At, 0); at.After(cutoff) {
			g.seen[e.Key] = at
		}
	}
	return g, nil
}

// replayKeys returns the keys a delivery is remembered under: its id and
// the digest of its body, both per route (each route has its own secret).
func replayKeys(route, delivery string, body []byte) (byID, byBody string) {
	h := sha256.New()
	fmt.Fprintf(h, "id\x00%s\x00%s", route, delivery)
	byID = hex.EncodeToString(h.Sum(nil))
	h.Reset()
	fmt.Fprintf(h, "body\x00%s\x00", route)
	h.Write(body)
	byBody = hex.EncodeToString(h.Sum(nil))
	return byID, byBody
}

// reserve reports whether a delivery is new. A new one is held as pending
// (so a concurrent copy counts as seen) until commit or release.
func (g *replayGuard) reserve(keys ...string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	cutoff := g.now().Add(-g.window)
	for _, k := range keys {
		if g.pending[k] {
			return false
		}
		if at, ok := g.seen[k]; ok && at.After(cutoff) {
			return false
		}
	}
	for _, k := range keys {
		g.pending[k] = true
	}
	return true
}

// release forgets a reservation whose delivery was not recorded, so that
// GitHub's redelivery of it runs.
func (g *replayGuard) release(keys ...string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, k := range keys {
		delete(g.pending, k)
	}
}

// commit remembers a recorded delivery and saves the window. A failure to
// save is logged: the delivery has been recorded and must be answered as
// such.
func (g *replayGuard) commit(keys ...string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.now()
	for _, k := range keys {
		delete(g.pending, k)
		g.seen[k] = now
	}
	g.prune(now)
	if g.path == "" {
		return
	}
	if err := g.save(); err != nil {
		g.log.Error("webhook replay window not saved", "file", g.path, "err", err)
	}
}

// prune drops expired entries and, past the bound, the oldest.
func (g *replayGuard) prune(now time.Time) {
	cutoff := now.Add(-g.window)
	for k, at := range g.seen {
		if !at.After(cutoff) {
			delete(g.seen, k)
		}
	}
	if len(g.seen) <= g.max {
		return
	}
	entries := g.entries()
	for _, e := range entries[:len(entries)-g.max] {
		delete(g.seen, e.Key)
	}
}

// entries returns the window oldest first.
func (g *replayGuard) entries() []replayEntry {
	out := make([]replayEntry, 0, len(g.seen))
	for k, at := range g.seen {
		out = append(out, replayEntry{Key: k, At: at.Unix()})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].At != out[j].At {
			return out[i].At < out[j].At
		}
		return out[i].Key < out[j].Key
	})
	return out
}

// save writes the window atomically and durably through package
// atomicfile: a temporary file in the same directory, synced, renamed
// over the old one, and the directory synced.
func (g *replayGuard) save() error {
	data, err := json.Marshal(replayDoc{Version: 1, Entries: g.entries()})
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(g.path, data, 0o600)
}
