package memory

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/joshbot/joshbot/memory/atomicfile"
)

// Dream file names inside the workspace.
const (
	// DreamRawFile receives one JSON record per turn while dream mode is
	// record or full.
	DreamRawFile = "dream_raw.log"
	// DreamConsolidatedFile receives the insights of each consolidation.
	DreamConsolidatedFile = "dream_consolidated.jsonl"
	dreamProcessingSuffix = ".processing"
	dreamStateFile        = "dream_state.json"
)

// DreamHalfLife is the half-life of an insight's confidence: an insight last
// seen this long ago counts half as much when it is promoted or ranked.
const DreamHalfLife = 30 * 24 * time.Hour

// Clustering parameters: records whose TF-IDF vectors have at least
// clusterSimilarity cosine similarity with a cluster's centroid join it, and
// a cluster needs minSupport records to become an insight.
const (
	clusterSimilarity = 0.3
	minSupport        = 2
	// promoteConfidence and promoteSupport gate promotion of an insight
	// to a fact in dream mode full.
	promoteConfidence = 0.5
	promoteSupport    = 3
	// dreamDueBytes is the raw log size at which ConsolidateIfDue runs.
	dreamDueBytes = 32 << 10
)

// dreamRecord is one line of the raw dream log.
type dreamRecord struct {
	Time time.Time `json:"ts"`
	Key  string    `json:"key"`
	Text string    `json:"text"`
}

// Insight is one cluster of related turns found by consolidation, as stored
// in DreamConsolidatedFile.
type Insight struct {
	// Kind is "insight" for insights and "batch" for the marker that
	// closes a consolidation batch.
	Kind string `json:"kind"`
	// Batch identifies the consolidation run (a hash of its input), so a
	// re-run after a crash neither loses nor duplicates insights.
	Batch string `json:"batch"`
	// Key is the session the clustered turns came from; insights never mix
	// sessions.
	Key string `json:"key,omitempty"`
	// Text is the turn closest to the cluster's centre.
	Text string `json:"text,omitempty"`
	// Terms are the cluster's most characteristic words.
	Terms []string `json:"terms,omitempty"`
	// Support is how many turns the cluster holds.
	Support int `json:"support,omitempty"`
	// Confidence in [0, 1] grows with support and cohesion, before decay.
	Confidence float64 `json:"confidence,omitempty"`
	// First and Last are the times of the oldest and newest turn.
	First time.Time `json:"first,omitzero"`
	Last  time.Time `json:"last,omitzero"`
	// Records and Insights count a batch's input and output (batch
	// markers only).
	Records  int `json:"records,omitempty"`
	Insights int `json:"insights,omitempty"`
	// At is when the batch was consolidated.
	At time.Time `json:"at,omitzero"`
}

// Decayed returns the insight's confidence at now, halved for every
// DreamHalfLife since it was last seen.
func (in *Insight) Decayed(now time.Time) float64 {
	age := now.Sub(in.Last)
	if age < 0 {
		age = 0
	}
	return in.Confidence * math.Pow(0.5, float64(age)/float64(DreamHalfLife))
}

func (l *LongTerm) rawPath() string { return filepath.Join(l.dir, DreamRawFile) }

// recordDream appends a raw record; the caller holds the lock.
func (l *LongTerm) recordDream(key, text string, at time.Time) error {
	b, err := json.Marshal(dreamRecord{Time: at, Key: key, Text: text})
	if err != nil {
		return errorf("dream record: %w", err)
	}
	if err := appendSync(l.rawPath(), append(b, '\n')); err != nil {
		return errorf("append %s: %w", DreamRawFile, err)
	}
	return nil
}

// ConsolidationReport says what one [LongTerm.ConsolidateDream] run did.
type ConsolidationReport struct {
	// Records is how many raw records were read and Unreadable how many
	// lines were skipped.
	Records, Unreadable int
	// Insights is how many insights were appended.
	Insights int
	// Promoted is how many insights became facts (dream mode full).
	Promoted int
	// Resumed is true when the run finished a batch an earlier run had
	// started but not completed.
	Resumed bool
}

// DreamStatus is the operator's view of dream consolidation.
type DreamStatus struct {
	// Mode is the configured dream mode.
	Mode string `json:"mode"`
	// RawBytes and RawRecords describe the raw log waiting to be
	// consolidated, including a batch interrupted mid-run.
	RawBytes   int64 `json:"raw_bytes"`
	RawRecords int   `json:"raw_records"`
	// Insights counts stored insights; Batches completed runs.
	Insights int `json:"insights"`
	Batches  int `json:"batches"`
	// LastRun is the time of the last completed batch; zero means never.
	LastRun time.Time `json:"last_run,omitzero"`
	// Interrupted is true when a batch was started and not finished; the
	// next consolidation resumes it.
	Interrupted bool `json:"interrupted"`
}

// DreamStatus reports the state of the dream files. It changes nothing.
func (l *LongTerm) DreamStatus() (*DreamStatus, error) {
	st := &DreamStatus{Mode: l.dream}
	for _, p := range []string{l.rawPath(), l.rawPath() + dreamProcessingSuffix} {
		f, err := os.Open(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, errorf("memory: dream status: %w", err)
		}
		n, size, err := countLines(f)
		f.Close()
		if err != nil {
			return nil, errorf("memory: dream status: %w", err)
		}
		st.RawRecords += n
		st.RawBytes += size
		if strings.HasSuffix(p, dreamProcessingSuffix) {
			st.Interrupted = true
		}
	}
	ins, batches, err := l.readInsights()
	if err != nil {
		return nil, err
	}
	st.Insights = len(ins)
	st.Batches = len(batches)
	for _, b := range batches {
		if b.At.After(st.LastRun) {
			st.LastRun = b.At
		}
	}
	return st, nil
}

func countLines(r io.Reader) (n int, size int64, err error) {
	buf := make([]byte, 64<<10)
	for {
		k, err := r.Read(buf)
		size += int64(k)
		n += bytes.Count(buf[:k], []byte{'\n'})
		if err == io.EOF {
			return n, size, nil
		}
		if err != nil {
			return 0, 0, err
		}
	}
}

// DreamDue reports whether enough raw records are waiting that
// [LongTerm.ConsolidateIfDue] would consolidate.
func (l *LongTerm) DreamDue() bool {
	if _, err := os.Stat(l.rawPath() + dreamProcessingSuffix); err == nil {
		return true
	}
	fi, err := os.Stat(l.rawPath())
	return err == nil && fi.Size() >= dreamDueBytes
}

// ConsolidateIfDue consolidates when dream mode is full and DreamDue holds.
func (l *LongTerm) ConsolidateIfDue() (*ConsolidationReport, error) {
	if l.dream != DreamFull || !l.DreamDue() {
		return &ConsolidationReport{}, nil
	}
	return l.ConsolidateDream()
}

// ConsolidateDream runs stage 2 of dream: it takes the raw log, fits a TF-IDF
// model over its records, clusters each session's records by cosine
// similarity, appends one insight per cluster of at least two records to
// DreamConsolidatedFile, and only then removes the records it consumed. In
// dream mode full it then promotes confident, well-supported insights to
// facts in their session's memory.
//
// It is crash-safe: the raw log is first renamed aside (new turns go to a
// fresh log meanwhile), the batch is named by a hash of its bytes, and
// insights count only once the batch's closing marker is written. A run
// interrupted anywhere is redone by the next one with the same result and no
// duplicates; no record is lost.
//
// It may be called whatever the dream mode, so an operator can consolidate
// what was recorded before turning dream off.
func (l *LongTerm) ConsolidateDream() (*ConsolidationReport, error) {
	unlock, err := l.lock()
	if err != nil {
		return nil, errorf("memory: consolidate dream: %w", err)
	}
	defer unlock()
	rep := &ConsolidationReport{}
	processing := l.rawPath() + dreamProcessingSuffix
	if _, err := os.Stat(processing); err == nil {
		rep.Resumed = true
	} else {
		if err := atomicfile.Rename(l.rawPath(), processing); errors.Is(err, fs.ErrNotExist) {
			return rep, nil
		} else if err != nil {
			return nil, errorf("memory: consolidate dream: %w", err)
		}
	}
	data, err := os.ReadFile(processing)
	if err != nil {
		return nil, errorf("memory: consolidate dream: %w", err)
	}
	sum := sha256.Sum256(data)
	batch := hex.EncodeToString(sum[:12])
	var recs []dreamRecord
	for _, line := range bytes.Split(data, []byte{'\n'}) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var r dreamRecord
		if err := json.Unmarshal(line, &r); err != nil || r.Key == "" {
			rep.Unreadable++
			continue
		}
		recs = append(recs, r)
	}
	rep.Records = len(recs)
	if rep.Unreadable > 0 {
		slog.Warn("memory: skipped unreadable dream records; they remain in HISTORY.md", "skipped", rep.Unreadable)
	}

	_, batches, err := l.readInsights()
	if err != nil {
		return nil, err
	}
	var insights []Insight
	if _, done := batches[batch]; !done {
		now := l.now().UTC()
		insights = clusterRecords(recs)
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		for i := range insights {
			insights[i].Kind, insights[i].Batch = "insight", batch
			if err := enc.Encode(&insights[i]); err != nil {
				return nil, errorf("memory: consolidate dream: %w", err)
			}
		}
		// The marker is written in the same append, after the insights:
		// readers ignore insights of a batch without one, so a torn append
		// is simply redone.
		if err := enc.Encode(Insight{Kind: "batch", Batch: batch, Records: len(recs), Insights: len(insights), At: now}); err != nil {
			return nil, errorf("memory: consolidate dream: %w", err)
		}
		if err := appendSync(filepath.Join(l.dir, DreamConsolidatedFile), buf.Bytes()); err != nil {
			return nil, errorf("memory: consolidate dream: %w", err)
		}
		rep.Insights = len(insights)
	}
	if err := os.Remove(processing); err != nil {
		return nil, errorf("memory: consolidate dream: insights saved but the raw batch could not be removed: %w", err)
	}
	if l.dream == DreamFull && len(insights) > 0 {
		rep.Promoted = l.promote(insights)
	}
	return rep, nil
}

// promote adds each confident insight as a fact to its session's memory.
// The caller holds the lock. Failures are logged: the insights are stored
// and searchable either way.
func (l *LongTerm) promote(insights []Insight) int {
	now := l.now()
	byKey := map[string][]string{}
	for i := range insights {
		in := &insights[i]
		if in.Support < promoteSupport || in.Decayed(now) < promoteConfidence || len(in.Terms) == 0 {
			continue
		}
		terms := in.Terms[:min(len(in.Terms), 5)]
		byKey[in.Key] = append(byKey[in.Key], "Recurring topic: "+strings.Join(terms, ", "))
	}
	n := 0
	for _, key := range slices.Sorted(mapKeys(byKey)) {
		added, err := l.addFactsLocked(key, byKey[key])
		if err != nil {
			slog.Warn("memory: could not promote dream insights", "session", key, "err", err)
			continue
		}
		n += len(added)
	}
	return n
}

func mapKeys[M ~map[K]V, K comparable, V any](m M) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// readInsights returns the insights of completed batches and the batch
// markers by batch id. A missing file is empty; unreadable lines are
// skipped.
func (l *LongTerm) readInsights() ([]Insight, map[string]Insight, error) {
	f, err := os.Open(filepath.Join(l.dir, DreamConsolidatedFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, map[string]Insight{}, nil
	}
	if err != nil {
		return nil, nil, errorf("memory: read insights: %w", err)
	}
	defer f.Close()
	var all []Insight
	batches := map[string]Insight{}
	br := bufio.NewReaderSize(f, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var in Insight
			if json.Unmarshal(line, &in) == nil {
				if in.Kind == "batch" {
					batches[in.Batch] = in
				} else if in.Kind == "insight" {
					all = append(all, in)
				}
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, errorf("memory: read insights: %w", err)
		}
	}
	out := all[:0]
	seen := map[string]bool{}
	for _, in := range all {
		// A batch redone after a torn append wrote its insights twice;
		// only the completed copy counts.
		id := in.Batch + "\x00" + in.Key + "\x00" + in.Text
		if _, ok := batches[in.Batch]; ok && !seen[id] {
			seen[id] = true
			out = append(out, in)
		}
	}
	return out, batches, nil
}

// Insights returns the stored insights of session key, most confident (after
// decay) first.
func (l *LongTerm) Insights(key string) ([]Insight, error) {
	all, _, err := l.readInsights()
	if err != nil {
		return nil, err
	}
	now := l.now()
	var out []Insight
	for _, in := range all {
		if in.Key == key {
			out = append(out, in)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Decayed(now) > out[j].Decayed(now) })
	return out, nil
}
