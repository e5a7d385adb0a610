package agent

import (
	"context"
	"strings"
	"sync"
	"time"
	"unicode"
)

// Defaults of the learning batch (see MemoryOptions.LearnEvery and
// MemoryOptions.LearnIdle).
const (
	DefaultLearnEvery = 5
	DefaultLearnIdle  = 2 * time.Minute
)

// learnQueue gathers the exchanges of each session that are worth learning
// from, so that several of them go into one learning request: after every
// learnEvery exchanges, when the session has been idle for learnIdle, and
// when [Agent.Wait] or [Agent.Shutdown] flushes.
//
// A session with exchanges waiting holds one count of the agent's
// background WaitGroup, taken by a background goroutine (so never while
// the count may be zero) and released by whoever takes the batch out of
// the map: the idle timer, a full batch, or a flush.
type learnQueue struct {
	a        *Agent
	every    int
	idle     time.Duration
	provider Provider
	model    string
	separate bool // provider is MemoryOptions.LearnProvider

	mu       sync.Mutex
	pending  map[string]*learnBatch
	draining int // Wait or Shutdown calls in progress: learn at once
}

// learnBatch is one session's exchanges waiting to be learned from.
type learnBatch struct {
	recs  []turnRecord
	timer *time.Timer
}

func (q *learnQueue) init(a *Agent, o *MemoryOptions) error {
	q.a, q.every, q.idle = a, o.LearnEvery, o.LearnIdle
	q.provider, q.model = o.LearnProvider, o.LearnModel
	switch {
	case q.every < 0:
		return errorf("agent: MemoryOptions.LearnEvery is %d: use a positive number of exchanges, or 0 for the default of %d", q.every, DefaultLearnEvery)
	case q.every == 0:
		q.every = DefaultLearnEvery
	}
	switch {
	case q.idle == 0:
		q.idle = DefaultLearnIdle
	case q.idle < 0:
		q.idle = 0
	}
	q.separate = q.provider != nil
	if !q.separate {
		q.provider = a.provider
	}
	if q.model == "" {
		q.model = a.model
	}
	q.pending = map[string]*learnBatch{}
	return nil
}

// add queues rec, learning from its session's batch now when the batch is
// full or a flush is under way. It runs on a background goroutine of the
// agent (its count is held), with ctx bounded by the learning timeout.
func (q *learnQueue) add(ctx context.Context, rec turnRecord) {
	// Only this much of each side reaches the request, so a waiting batch
	// holds no more.
	rec.user, rec.reply = clip(rec.user, learnMaxTurnChars/2), clip(rec.reply, learnMaxTurnChars/2)
	q.mu.Lock()
	b := q.pending[rec.key]
	if b == nil {
		b = &learnBatch{}
		q.pending[rec.key] = b
		q.a.bg.Add(1) // released by whoever takes b out of the map
	}
	b.recs = append(b.recs, rec)
	if len(b.recs) < q.every && q.draining == 0 {
		if q.idle > 0 {
			if b.timer == nil {
				key := rec.key
				b.timer = time.AfterFunc(q.idle, func() { q.idleFlush(key, b) })
			} else {
				b.timer.Reset(q.idle)
			}
		}
		q.mu.Unlock()
		return
	}
	q.take(rec.key)
	q.mu.Unlock()
	defer q.a.bg.Done()
	q.a.learnBatch(ctx, rec.key, b.recs)
}

// take removes key's batch from the map and stops its timer; the caller
// holds mu and then owns the batch's count of the background WaitGroup.
func (q *learnQueue) take(key string) *learnBatch {
	b := q.pending[key]
	delete(q.pending, key)
	if b != nil && b.timer != nil {
		b.timer.Stop()
	}
	return b
}

// idleFlush learns from b when the session stayed idle; a batch already
// taken (full, or flushed) is left alone.
func (q *learnQueue) idleFlush(key string, b *learnBatch) {
	q.mu.Lock()
	if q.pending[key] != b {
		q.mu.Unlock()
		return
	}
	q.take(key)
	q.mu.Unlock()
	defer q.a.bg.Done()
	ctx, cancel := context.WithTimeout(q.a.bgCtx, q.a.learnTimeout)
	defer cancel()
	q.a.learnBatch(ctx, key, b.recs)
}

// startDrain makes every waiting batch be learned from now, and the
// exchanges queued until endDrain too, each on its own background
// goroutine bounded by the learning timeout.
func (q *learnQueue) startDrain() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.draining++
	for key := range q.pending {
		b := q.take(key)
		go func() {
			defer q.a.bg.Done()
			ctx, cancel := context.WithTimeout(q.a.bgCtx, q.a.learnTimeout)
			defer cancel()
			q.a.learnBatch(ctx, key, b.recs)
		}()
	}
}

func (q *learnQueue) endDrain() {
	q.mu.Lock()
	q.draining--
	q.mu.Unlock()
}

// worthLearning is a cheap local heuristic, not an understanding of the
// text: it tells whether a user's message may state something durable
// about them. It looks for first-person words ("I", "my", "me", "we",
// "our", ...), words that ask to keep or that state a preference or habit
// ("remember", "prefer", "always", "never", "call me", ...), and names (a
// capitalised word that does not start a sentence). A message with none
// of these ("what is 2+2?", "thanks", "summarise this page") is not sent
// to the learning model. It errs towards learning: a question that names
// a city is sent too; a fact stated with no first person and no name
// ("the dog is three") is missed.
func worthLearning(text string) bool {
	sentenceStart := true
	for _, w := range strings.FieldsFunc(text, func(r rune) bool {
		return unicode.IsSpace(r) || r == '"' || r == '(' || r == ')' || r == ','
	}) {
		start := sentenceStart
		sentenceStart = strings.ContainsAny(w[len(w)-1:], ".!?:;\n")
		word := strings.ToLower(strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' }))
		if word == "" {
			continue
		}
		if learnWord(word) {
			return true
		}
		if i := strings.IndexByte(word, '\''); i > 0 && learnWord(word[:i]) { // I'm, we've
			return true
		}
		if r := []rune(strings.TrimLeft(w, "\"'(")); !start && len(r) > 1 && unicode.IsUpper(r[0]) && unicode.IsLower(r[1]) {
			return true
		}
	}
	return false
}

// learnWord reports whether word is one of the words that make a message
// worth learning from by themselves; see worthLearning. It is a switch
// rather than a package-level map so that the package has no init code.
func learnWord(word string) bool {
	switch word {
	case "i", "me", "my", "mine", "myself",
		"we", "us", "our", "ours", "im", "ive",
		"remember", "forget", "prefer", "preference", "preferences",
		"always", "never", "favourite", "favorite", "birthday",
		"call", "name", "named", "allergic":
		return true
	}
	return false
}
