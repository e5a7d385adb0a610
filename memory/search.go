package memory

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"time"
	"unsafe"
)

// Result is one hit of [LongTerm.Search].
type Result struct {
	// Source is "memory" for a fact, "history" for a HISTORY.md entry and
	// "insight" for a dream insight.
	Source string
	// Time is when the entry was written (for facts, when their file last
	// changed; for insights, when their newest turn happened).
	Time time.Time
	// Scope is whose entry it is: SharedScope for one every session sees,
	// otherwise the session key that wrote it (for a HISTORY.md entry,
	// the key its header names, which anything able to write the file
	// could have forged).
	Scope string
	// Text is the entry, shortened to a few hundred words.
	Text string
	// Score is the relevance; higher is better. Insights' scores are
	// scaled by their decayed confidence.
	Score float64
}

// Search limits.
const (
	// DefaultMemorySearchLimit is how many results Search returns when
	// limit is zero or less.
	DefaultMemorySearchLimit = 8
	maxResultBytes           = 1500
	maxHistoryLine           = 64 << 10
)

// BM25 parameters, the usual ones.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

type searchDoc struct {
	source     string
	scope      string
	time       time.Time
	text       string // set for facts and insights
	start, end int64  // HISTORY.md byte range, for history entries
	tf         []int
	length     int
	weight     float64
}

// Search ranks the long-term memory visible to session key against query,
// lexically (BM25 over words, ignoring case): MEMORY.md's facts, the facts
// of key's scope (see [LongTerm.ScopeOf]), HISTORY.md entries written for
// everyone or for any session of key's scope, and key's dream insights. Use SharedScope as key to see only what is
// shared. HISTORY.md is streamed, not loaded, so its size only costs time;
// unreadable bytes are replaced, not fatal.
func (l *LongTerm) Search(key, query string, limit int) ([]Result, error) {
	if key != SharedScope {
		if err := ValidateKey(key); err != nil {
			return nil, err
		}
	}
	if limit <= 0 {
		limit = DefaultMemorySearchLimit
	}
	qidx := map[string]int{}
	tokens(query, nil, func(tok []byte) {
		if _, ok := qidx[string(tok)]; !ok {
			qidx[string(tok)] = len(qidx)
		}
	})
	if len(qidx) == 0 {
		return nil, errorf("memory: search: the query %q has no searchable words", query)
	}
	s := &scorer{qidx: qidx, df: make([]int, len(qidx))}

	scope := SharedScope
	if key != SharedScope {
		scope = l.ScopeOf(key)
	}
	scopes := []string{SharedScope}
	if scope != SharedScope {
		scopes = append(scopes, scope)
	}
	for _, sc := range scopes {
		facts, err := l.Facts(sc)
		if err != nil {
			return nil, err
		}
		var mod time.Time
		if p, err := l.FactsPath(sc); err == nil {
			if fi, err := os.Stat(p); err == nil {
				mod = fi.ModTime()
			}
		}
		for _, f := range facts {
			s.add(searchDoc{source: "memory", scope: sc, time: mod, text: f, weight: 1}, f)
		}
	}
	visible := func(tag string) bool {
		return key != SharedScope && (tag == key || ValidateKey(tag) == nil && l.ScopeOf(tag) == scope)
	}
	if err := s.history(l.HistoryPath(), visible); err != nil {
		return nil, err
	}
	if key != SharedScope {
		ins, err := l.Insights(key)
		if err != nil {
			return nil, err
		}
		now := l.now()
		for i := range ins {
			text := ins[i].Text + " (" + strings.Join(ins[i].Terms, ", ") + ")"
			s.add(searchDoc{source: "insight", scope: key, time: ins[i].Last, text: text, weight: ins[i].Decayed(now)}, text)
		}
	}
	return s.results(l.HistoryPath(), limit)
}

// scorer accumulates candidate documents and corpus statistics.
type scorer struct {
	qidx     map[string]int
	df       []int
	n        int // documents seen, matching or not
	totalLen int
	cands    []searchDoc
	buf      []byte
}

// add counts a fact or insight document.
func (s *scorer) add(d searchDoc, text string) {
	d.tf = make([]int, len(s.qidx))
	s.buf = tokens(text, s.buf, func(tok []byte) {
		d.length++
		if i, ok := s.qidx[string(tok)]; ok {
			d.tf[i]++
		}
	})
	s.finish(d)
}

func (s *scorer) finish(d searchDoc) {
	s.n++
	s.totalLen += d.length
	hit := false
	for i, c := range d.tf {
		if c > 0 {
			s.df[i]++
			hit = true
		}
	}
	if hit {
		s.cands = append(s.cands, d)
	}
}

// history streams HISTORY.md, counting entries visible to key.
func (s *scorer) history(path string, visible func(tag string) bool) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return errorf("memory: search history: %w", err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
	var (
		off     int64
		cur     *searchDoc
		tf      = make([]int, len(s.qidx))
		skip    bool // in an entry of another session
		partial bool // inside an overlong line
	)
	end := func(at int64) {
		if cur != nil {
			cur.end = at
			cur.tf = slices.Clone(tf)
			s.finish(*cur)
			cur = nil
		}
	}
	for {
		line, err := br.ReadSlice('\n')
		start := off
		off += int64(len(line))
		if err != nil && err != bufio.ErrBufferFull && err != io.EOF {
			return errorf("memory: search history: %w", err)
		}
		atLineStart := !partial
		partial = err == bufio.ErrBufferFull
		if atLineStart && bytes.HasPrefix(line, []byte(historyHeader)) {
			if t, tag, ok := parseHeader(line); ok {
				end(start)
				skip = tag != sharedTag && !visible(tag)
				if !skip {
					cur = &searchDoc{source: "history", scope: tag, time: t, start: start, weight: 1}
					if tag == sharedTag {
						cur.scope = SharedScope
					}
					clear(tf)
				}
				if err == io.EOF {
					break
				}
				continue
			}
		}
		if cur != nil && !skip {
			if len(line) > maxHistoryLine {
				line = line[:maxHistoryLine]
			}
			// A view of the line's bytes, not a copy: tokens only reads
			// it during the call.
			s.buf = tokens(unsafe.String(unsafe.SliceData(line), len(line)), s.buf, func(tok []byte) {
				cur.length++
				if i, ok := s.qidx[string(tok)]; ok {
					tf[i]++
				}
			})
		}
		if err == io.EOF {
			break
		}
	}
	end(off)
	return nil
}

// parseHeader reads "## <RFC3339> · <tag>".
func parseHeader(line []byte) (time.Time, string, bool) {
	rest := strings.TrimSpace(string(line[len(historyHeader):]))
	ts, tag, ok := strings.Cut(rest, " · ")
	if !ok {
		return time.Time{}, "", false
	}
	t, err := time.Parse(time.RFC3339, ts)
	if err != nil {
		return time.Time{}, "", false
	}
	return t, tag, true
}

// results scores the candidates with BM25 and returns the best limit.
func (s *scorer) results(historyPath string, limit int) ([]Result, error) {
	if len(s.cands) == 0 {
		return nil, nil
	}
	avg := float64(s.totalLen) / float64(max(s.n, 1))
	if avg == 0 {
		avg = 1
	}
	idf := make([]float64, len(s.df))
	for i, df := range s.df {
		idf[i] = math.Log(1 + (float64(s.n)-float64(df)+0.5)/(float64(df)+0.5))
	}
	scores := make([]float64, len(s.cands))
	for j := range s.cands {
		d := &s.cands[j]
		var sc float64
		for i, c := range d.tf {
			if c == 0 {
				continue
			}
			tf := float64(c)
			sc += idf[i] * tf * (bm25K1 + 1) / (tf + bm25K1*(1-bm25B+bm25B*float64(d.length)/avg))
		}
		scores[j] = sc * d.weight
	}
	order := make([]int, len(s.cands))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if scores[a] != scores[b] {
			return scores[a] > scores[b]
		}
		return s.cands[b].time.Before(s.cands[a].time)
	})
	if len(order) > limit {
		order = order[:limit]
	}
	var f *os.File
	defer func() {
		if f != nil {
			f.Close()
		}
	}()
	out := make([]Result, 0, len(order))
	for _, j := range order {
		d := &s.cands[j]
		text := d.text
		if d.source == "history" {
			if f == nil {
				var err error
				if f, err = os.Open(historyPath); err != nil {
					return nil, errorf("memory: search history: %w", err)
				}
			}
			n := min(d.end-d.start, maxResultBytes)
			b := make([]byte, n)
			if _, err := f.ReadAt(b, d.start); err != nil && err != io.EOF {
				return nil, errorf("memory: search history: %w", err)
			}
			text = historyText(b, n < d.end-d.start)
		}
		out = append(out, Result{Source: d.source, Scope: d.scope, Time: d.time, Text: text, Score: math.Round(scores[j]*1000) / 1000})
	}
	return out, nil
}

// historyText turns the raw bytes of an entry into display text: the header
// is dropped and header-like lines are unescaped.
func historyText(b []byte, cut bool) string {
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	if _, rest, ok := strings.Cut(s, "\n"); ok {
		s = rest
	}
	s = strings.ReplaceAll(strings.TrimSpace(s), "\n\\##", "\n##")
	s = strings.TrimPrefix(s, "\\")
	if cut {
		s += " …"
	}
	return s
}
