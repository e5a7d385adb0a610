package agent

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// Incident kinds.
const (
	// IncidentTurnTimeout: the turn's own time budget ended it.
	IncidentTurnTimeout = "turn_timeout"
	// IncidentLLMFailure: the provider failed while the turn was live.
	IncidentLLMFailure = "llm_failure"
	// IncidentStreamDied: a stream broke after part of the answer was
	// shown. A stream that dies before any text is retried invisibly and
	// is not an incident.
	IncidentStreamDied = "stream_died"
)

// Incident is one turn failure that would otherwise leave only a generic
// line in the chat.
type Incident struct {
	// Time is when the turn ended.
	Time time.Time `json:"time"`
	// Kind is IncidentTurnTimeout, IncidentLLMFailure or
	// IncidentStreamDied.
	Kind string `json:"kind"`
	// Session is the conversation's session key.
	Session string `json:"session,omitempty"`
	// Provider and Model are what the turn was asking.
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
	// Iterations and ToolCalls are how far the turn got.
	Iterations int `json:"iterations,omitempty"`
	ToolCalls  int `json:"tool_calls,omitempty"`
	// Error is the failure, on one line and redacted.
	Error string `json:"error,omitempty"`
}

// IncidentRecorder receives incidents. Record must be safe for concurrent
// use and must not block a turn for long.
type IncidentRecorder interface {
	Record(inc Incident)
}

// IncidentCounter is the optional ability of an [IncidentRecorder] to
// count incidents by kind since a time; /status and [HealedTimeout] use it.
type IncidentCounter interface {
	CountSince(since time.Time) map[string]int
}

// recordIncident classifies how a turn ended and records it.
func (a *Agent) recordIncident(ctx context.Context, req *Request, t *turn, reply *Reply, err error) {
	var kind string
	switch {
	case err != nil && errors.Is(err, ErrTurnTimeout):
		kind = IncidentTurnTimeout
	case t.streamDied != nil:
		kind, err = IncidentStreamDied, t.streamDied
	case err != nil && ctx.Err() == nil && !errors.Is(err, ErrIterationLimit) && t.providerFailed:
		kind = IncidentLLMFailure
	default:
		return
	}
	inc := Incident{Time: a.now(), Kind: kind, Session: req.SessionKey, Provider: a.providerName, Model: t.model}
	if inc.Model == "" {
		inc.Model = a.model
	}
	if reply != nil {
		inc.Iterations, inc.ToolCalls = reply.Iterations, reply.ToolCalls
	}
	if err != nil {
		inc.Error = scrub(oneLine(err.Error()))
	}
	a.log.Warn("turn incident", "kind", kind, "session", req.SessionKey, "iterations", inc.Iterations, "tool_calls", inc.ToolCalls, "err", inc.Error)
	if a.ext.incidents != nil {
		a.ext.incidents.Record(inc)
	}
}

// IncidentLine returns the "Incidents: ..." status line for incidents
// since the given time, or "" when there were none or rec cannot count.
func IncidentLine(rec IncidentRecorder, since time.Time) string {
	c, ok := rec.(IncidentCounter)
	if !ok {
		return ""
	}
	counts := c.CountSince(since)
	total := 0
	for _, n := range counts {
		total += n
	}
	if total == 0 {
		return ""
	}
	kinds := sortedNames(counts)
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%d %s", counts[k], k)
	}
	return fmt.Sprintf("Incidents: %d in the last 24h (%s); see joshbot incidents list", total, strings.Join(parts, ", "))
}

// Heal timeout settings: each turn_timeout in the last 24 hours adds
// HealStep to the next start's turn timeout, at most HealMaxSteps times.
const (
	HealStep     = 30 * time.Second
	HealMaxSteps = 4
)

// HealedTimeout returns the turn timeout for a start at now when
// a program chooses to heal timeouts: base plus [HealStep] per
// turn_timeout incident in the 24 hours before now, capped at
// [HealMaxSteps] steps. LLM failures do not count: a failing provider is not
// a budget problem.
func HealedTimeout(base time.Duration, rec IncidentRecorder, now time.Time) time.Duration {
	c, ok := rec.(IncidentCounter)
	if !ok {
		return base
	}
	n := min(c.CountSince(now.Add(-24 * time.Hour))[IncidentTurnTimeout], HealMaxSteps)
	return base + time.Duration(n)*HealStep
}

// DefaultIncidentCap is how many incidents an [IncidentLog] keeps in
// memory.
const DefaultIncidentCap = 500

// IncidentLogOptions configures [OpenIncidentLog]. Nil means defaults.
type IncidentLogOptions struct {
	// Cap bounds the incidents held in memory; zero means
	// DefaultIncidentCap. The file keeps growing until cleared; only the
	// newest Cap are loaded.
	Cap int
	// Redact is applied to every text field before it is stored or logged;
	// nil applies a built-in scrub of bearer tokens and key-shaped words.
	Redact func(string) string
	// Logger receives a warning for each unreadable line; nil means
	// slog.Default().
	Logger *slog.Logger
}

// IncidentLog is a file-backed [IncidentRecorder] and [IncidentCounter]:
// incidents.jsonl, one JSON object per line, mode 0600. It is safe for
// concurrent use within one process; across processes each record is one
// O_APPEND write, so lines do not interleave.
type IncidentLog struct {
	path   string
	cap    int
	redact func(string) string
	log    *slog.Logger

	mu    sync.Mutex
	items []Incident
}

// OpenIncidentLog loads path (a missing file is an empty log), keeping the
// newest entries up to the cap and skipping lines that do not parse, with
// one warning naming how many were skipped.
func OpenIncidentLog(path string, opts *IncidentLogOptions) (*IncidentLog, error) {
	l := &IncidentLog{path: path, cap: DefaultIncidentCap, redact: scrub, log: slog.Default()}
	if opts != nil {
		if opts.Cap > 0 {
			l.cap = opts.Cap
		}
		if opts.Redact != nil {
			l.redact = opts.Redact
		}
		if opts.Logger != nil {
			l.log = opts.Logger
		}
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return l, nil
	}
	if err != nil {
		return nil, errorf("incidents: open %s: %w", path, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	bad := 0
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var inc Incident
		if err := json.Unmarshal(line, &inc); err != nil || inc.Kind == "" {
			bad++
			continue
		}
		l.items = append(l.items, inc)
		if len(l.items) > 2*l.cap {
			l.items = append(l.items[:0:0], l.items[len(l.items)-l.cap:]...)
		}
	}
	if err := sc.Err(); err != nil {
		// A line over the scanner's limit ends the read; what was read
		// stays usable.
		bad++
		l.log.Warn("incidents: stopped reading at an oversized line", "file", path, "err", err)
	}
	if len(l.items) > l.cap {
		l.items = l.items[len(l.items)-l.cap:]
	}
	if bad > 0 {
		l.log.Warn("incidents: skipped unreadable lines", "file", path, "count", bad)
	}
	return l, nil
}

// Record appends inc to memory and to the file. A write failure is logged:
// losing an incident record must not fail the turn it describes.
func (l *IncidentLog) Record(inc Incident) {
	inc.Error = l.redact(inc.Error)
	inc.Session = l.redact(inc.Session)
	b, err := json.Marshal(inc)
	if err != nil {
		l.log.Error("incidents: encode", "err", err)
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.items = append(l.items, inc)
	if len(l.items) > l.cap {
		l.items = append(l.items[:0:0], l.items[len(l.items)-l.cap:]...)
	}
	if err := os.MkdirAll(filepath.Dir(l.path), 0o700); err != nil {
		l.log.Error("incidents: not written", "file", l.path, "err", err)
		return
	}
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		l.log.Error("incidents: not written", "file", l.path, "err", err)
		return
	}
	defer f.Close()
	if _, err := f.Write(append(b, '\n')); err != nil {
		l.log.Error("incidents: not written", "file", l.path, "err", err)
	}
}

// List returns the incidents held, oldest first.
func (l *IncidentLog) List() []Incident {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Incident(nil), l.items...)
}

// CountSince counts incidents at or after since, by kind.
func (l *IncidentLog) CountSince(since time.Time) map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	m := make(map[string]int)
	for _, inc := range l.items {
		if !inc.Time.Before(since) {
			m[inc.Kind]++
		}
	}
	return m
}

// Clear empties the log and truncates the file. It is an operator's reset,
// not an audit trail.
func (l *IncidentLog) Clear() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.items = nil
	if err := os.Truncate(l.path, 0); err != nil && !errors.Is(err, os.ErrNotExist) {
		return errorf("incidents: clear %s: %w", l.path, err)
	}
	return nil
}

// IncidentSummary is one row of [SummarizeIncidents].
type IncidentSummary struct {
	Kind  string    `json:"kind"`
	Count int       `json:"count"`
	Last  time.Time `json:"last"`
}

// SummarizeIncidents groups incs by kind, most frequent first.
func SummarizeIncidents(incs []Incident) []IncidentSummary {
	m := map[string]*IncidentSummary{}
	for _, inc := range incs {
		s := m[inc.Kind]
		if s == nil {
			s = &IncidentSummary{Kind: inc.Kind}
			m[inc.Kind] = s
		}
		s.Count++
		if inc.Time.After(s.Last) {
			s.Last = inc.Time
		}
	}
	out := make([]IncidentSummary, 0, len(m))
	for _, s := range m {
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Kind < out[j].Kind
	})
	return out
}

// scrub is the fallback redaction: provider errors sometimes echo the
// Authorization header or a key, and incidents are kept for days. The
// binary passes its full redactor instead.
func scrub(s string) string {
	fields := strings.Fields(s)
	changed := false
	for i, f := range fields {
		lower := strings.ToLower(f)
		if i > 0 && strings.EqualFold(fields[i-1], "bearer") {
			fields[i], changed = "[REDACTED]", true
			continue
		}
		for _, p := range []string{"sk-", "sk_", "gsk_", "xoxb-", "ghp_", "key=", "token="} {
			if strings.HasPrefix(lower, p) && len(f) > len(p)+8 {
				fields[i], changed = f[:len(p)]+"[REDACTED]", true
			}
		}
	}
	if !changed {
		return s
	}
	return strings.Join(fields, " ")
}
