package providers

import (
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// Cooldown bounds for a provider that failed without saying how long to
// wait: the first failure parks it for baseCooldown, each further
// consecutive failure doubles that, up to maxCooldown.
const (
	baseCooldown = 30 * time.Second
	maxCooldown  = 10 * time.Minute
)

// Health is a process-local record of how each provider has been doing. A
// [Chain] consults it to try providers that are cooling down after a
// failure last, and updates it after every attempt. It deliberately
// forgets: a provider is never dropped, only tried later, and one success
// clears its record, so a wrong guess costs latency rather than
// availability.
//
// Health is safe for concurrent use. Create it with [NewHealth]; one
// instance is meant to be shared by every chain of a process so that all
// conversations learn from each other's failures.
type Health struct {
	mu      sync.Mutex
	now     func() time.Time
	records map[string]*healthRecord
	changes atomic.Uint64
}

type healthRecord struct {
	failures int
	until    time.Time
	lastErr  string
}

// ProviderHealth is one provider's entry in a [Health.Snapshot].
type ProviderHealth struct {
	// Provider is the provider's name.
	Provider string
	// ConsecutiveFailures counts failures since the last success.
	ConsecutiveFailures int
	// Cooldown is how long the provider stays deprioritized; zero when it
	// is not cooling down.
	Cooldown time.Duration
	// LastError is the last failure on one line; empty after a success.
	LastError string
}

// NewHealth returns an empty table. now is the clock; nil means time.Now.
func NewHealth(now func() time.Time) *Health {
	if now == nil {
		now = time.Now
	}
	return &Health{now: now, records: map[string]*healthRecord{}}
}

// Success clears provider's record.
func (h *Health) Success(provider string) {
	h.mu.Lock()
	if _, ok := h.records[provider]; ok {
		delete(h.records, provider)
		h.changes.Add(1)
	}
	h.mu.Unlock()
}

// Changes counts the records changed so far (failures recorded, records
// cleared by a success). A caller that keeps a copy of the table, such as
// a status file, can take a [Health.Snapshot] only when the count has
// moved since its last one, or when a cooldown it saw has ended: time
// passing ends cooldowns without counting as a change.
func (h *Health) Changes() uint64 { return h.changes.Load() }

// Failure records a failure of provider. cooldown is how long the provider
// asked to be left alone (from Retry-After); zero means a cooldown that
// grows with the number of consecutive failures.
func (h *Health) Failure(provider string, err error, cooldown time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r := h.records[provider]
	if r == nil {
		r = &healthRecord{}
		h.records[provider] = r
	}
	r.failures++
	h.changes.Add(1)
	if err != nil {
		r.lastErr = oneLine(err.Error(), 200)
	}
	d := baseCooldown << min(r.failures-1, 8)
	d = min(d, maxCooldown)
	d = max(d, cooldown)
	if until := h.now().Add(d); until.After(r.until) {
		r.until = until
	}
}

// cooling reports whether provider is deprioritized now, and until when.
func (h *Health) cooling(provider string) (time.Time, string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r := h.records[provider]
	if r == nil || !r.until.After(h.now()) {
		return time.Time{}, "", false
	}
	return r.until, r.lastErr, true
}

// Snapshot returns every provider with a failure on record, by name.
func (h *Health) Snapshot() []ProviderHealth {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := h.now()
	out := make([]ProviderHealth, 0, len(h.records))
	for name, r := range h.records {
		out = append(out, ProviderHealth{
			Provider:            name,
			ConsecutiveFailures: r.failures,
			Cooldown:            max(r.until.Sub(now), 0),
			LastError:           r.lastErr,
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Provider < out[j].Provider })
	return out
}

// order returns the indices of cands in the order to try them: providers
// not cooling down first, in configured order, then the cooling ones, the
// soonest to recover first.
func (h *Health) order(names []string) []int {
	type entry struct {
		i     int
		until time.Time
		cool  bool
	}
	es := make([]entry, len(names))
	for i, n := range names {
		until, _, cool := h.cooling(n)
		es[i] = entry{i, until, cool}
	}
	sort.SliceStable(es, func(a, b int) bool {
		if es[a].cool != es[b].cool {
			return !es[a].cool
		}
		return es[a].cool && es[a].until.Before(es[b].until)
	})
	out := make([]int, len(es))
	for i, e := range es {
		out[i] = e.i
	}
	return out
}
