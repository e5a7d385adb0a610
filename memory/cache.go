package memory

import (
	"hash/maphash"
	"slices"
	"sync"
	"time"
	"unicode/utf8"
)

// Bounds of the parsed-session cache: enough for the conversations a
// gateway keeps going at once, small beside the sessions themselves.
const (
	cacheMaxEntries = 128
	cacheMaxBytes   = 2 << 20 // session file bytes, summed over entries
)

// sessionCache keeps the decoded messages of recently used session files,
// keyed by session and validated by the file's length and a 64-bit hash of
// its bytes, so a Load whose file is unchanged costs a read and a hash
// instead of decoding every line. Any writer, this process or another,
// changes the bytes and so misses the cache; nothing relies on times or
// inode numbers. Entries are filled by Save (with the messages exactly as
// decoding the written bytes would give them) and by Load.
type sessionCache struct {
	seed maphash.Seed

	mu      sync.Mutex
	entries map[string]*cacheEntry
	bytes   int
	tick    uint64
}

type cacheEntry struct {
	sum  uint64
	size int
	msgs []Message
	used uint64
	// file is the version of the file these bytes were last seen in
	// (written or read by this Store), and dirSynced whether its
	// directory entry is known to be on disk. With them a save that only
	// adds messages appends them to that very file instead of rewriting
	// it (see Store.saveByAppend).
	file      fileStamp
	dirSynced bool
	// state is the hash after the file's bytes, when the writer kept it
	// (hasState), so an append can hash only what it adds.
	state    maphash.Hash
	hasState bool
}

// fileStamp identifies one version of a file (see stampOf); the zero
// value, with ok false, matches nothing.
type fileStamp struct {
	ino, dev uint64
	size     int64
	mtime    int64
	ok       bool
}

// appendBase is what a save that only adds messages builds on: the
// cached entry's file, its messages (the cache's own, to read and never
// change) and, when kept, the hash state after its bytes.
type appendBase struct {
	sum       uint64
	size      int
	msgs      []Message
	file      fileStamp
	dirSynced bool
	state     maphash.Hash
	hasState  bool
}

// base returns key's appendBase, or false when there is no entry with a
// known file to append to. Entries are replaced, never changed, so the
// messages stay valid after the lock is released.
func (c *sessionCache) base(key string) (appendBase, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok || !e.file.ok {
		return appendBase{}, false
	}
	return appendBase{sum: e.sum, size: e.size, msgs: e.msgs, file: e.file, dirSynced: e.dirSynced, state: e.state, hasState: e.hasState}, true
}

// sameMessages reports whether a encodes to the same lines as b, where b
// are messages as decoding gives them (see asDecoded). Equal fields
// encode alike; times are compared by their JSON form. A false answer
// only costs the caller the full comparison of the encoded bytes.
func sameMessages(a, b []Message) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.Role != y.Role || x.Content != y.Content || x.ToolCallID != y.ToolCallID || x.Name != y.Name || x.Kind != y.Kind ||
			!slices.Equal(x.ToolCalls, y.ToolCalls) || !slices.Equal(x.Attachments, y.Attachments) || !sameTime(x.Time, y.Time) {
			return false
		}
	}
	return true
}

// sameTime reports whether a and b are written alike in a session line.
func sameTime(a, b time.Time) bool {
	if a == b {
		return true
	}
	if a.IsZero() || b.IsZero() {
		return a.IsZero() && b.IsZero()
	}
	ja, erra := a.MarshalJSON()
	jb, errb := b.MarshalJSON()
	return erra == nil && errb == nil && string(ja) == string(jb)
}

func newSessionCache() *sessionCache {
	return &sessionCache{seed: maphash.MakeSeed(), entries: map[string]*cacheEntry{}}
}

// sum hashes a session file's bytes.
func (c *sessionCache) sum(data []byte) uint64 { return maphash.Bytes(c.seed, data) }

// get returns a copy of the messages cached for key when they were decoded
// from a file of size bytes hashing to sum.
func (c *sessionCache) get(key string, sum uint64, size int) ([]Message, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok || e.sum != sum || e.size != size {
		return nil, false
	}
	c.tick++
	e.used = c.tick
	return cloneMessages(e.msgs), true
}

// put caches a copy of msgs as the decoding of a file of size bytes
// hashing to sum, evicting the least recently used entries over the
// bounds. A file over the byte bound is not cached.
func (c *sessionCache) put(key string, sum uint64, size int, msgs []Message, file fileStamp, dirSynced bool) {
	c.putEntry(key, sum, nil, size, msgs, file, dirSynced)
}

// putState is put with the hash state after the file's bytes, which lets
// the next append hash only its own bytes.
func (c *sessionCache) putState(key string, h *maphash.Hash, size int, msgs []Message, file fileStamp, dirSynced bool) {
	c.putEntry(key, h.Sum64(), h, size, msgs, file, dirSynced)
}

func (c *sessionCache) putEntry(key string, sum uint64, h *maphash.Hash, size int, msgs []Message, file fileStamp, dirSynced bool) {
	if size > cacheMaxBytes {
		c.drop(key)
		return
	}
	own := cloneMessages(msgs)
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.entries[key]; ok {
		c.bytes -= old.size
	}
	c.tick++
	e := &cacheEntry{sum: sum, size: size, msgs: own, used: c.tick, file: file, dirSynced: dirSynced}
	if h != nil {
		e.state, e.hasState = *h, true
	}
	c.entries[key] = e
	c.bytes += size
	for len(c.entries) > cacheMaxEntries || c.bytes > cacheMaxBytes {
		lru := ""
		for k, e := range c.entries {
			if lru == "" || e.used < c.entries[lru].used {
				lru = k
			}
		}
		c.bytes -= c.entries[lru].size
		delete(c.entries, lru)
	}
}

// drop forgets key.
func (c *sessionCache) drop(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[key]; ok {
		c.bytes -= e.size
		delete(c.entries, key)
	}
}

// cloneMessages copies msgs deeply enough that neither copy can change the
// other: strings are immutable, the slices inside a message are not.
func cloneMessages(msgs []Message) []Message {
	if msgs == nil {
		return nil
	}
	out := slices.Clone(msgs)
	for i := range out {
		out[i].ToolCalls = slices.Clone(out[i].ToolCalls)
		out[i].Attachments = slices.Clone(out[i].Attachments)
	}
	return out
}

// asDecoded returns msgs as decoding their saved lines gives them back,
// or false when that takes decoding to know: a message Load would drop
// (no role) or text that encoding changes (invalid UTF-8). Empty slices
// come back nil and times as their JSON form parses.
func asDecoded(msgs []Message) ([]Message, bool) {
	out := cloneMessages(msgs)
	for i := range out {
		m := &out[i]
		if m.Role == "" || !validUTF8(m.Role, m.Content, m.ToolCallID, m.Name, m.Kind) {
			return nil, false
		}
		for _, c := range m.ToolCalls {
			if !validUTF8(c.ID, c.Name, c.Arguments) {
				return nil, false
			}
		}
		for _, a := range m.Attachments {
			if !validUTF8(a.Kind, a.Type, a.SHA256, a.Label) {
				return nil, false
			}
		}
		if len(m.ToolCalls) == 0 {
			m.ToolCalls = nil
		}
		if len(m.Attachments) == 0 {
			m.Attachments = nil
		}
		t, ok := roundTripTime(m.Time)
		if !ok {
			return nil, false
		}
		m.Time = t
	}
	if len(out) == 0 {
		out = nil
	}
	return out, true
}

func validUTF8(ss ...string) bool {
	for _, s := range ss {
		if !utf8.ValidString(s) {
			return false
		}
	}
	return true
}

// roundTripTime is t as its JSON form decodes ("ts" is omitted when zero).
func roundTripTime(t time.Time) (time.Time, bool) {
	if t.IsZero() {
		return time.Time{}, true
	}
	b, err := t.MarshalJSON()
	if err != nil {
		return time.Time{}, false
	}
	var back time.Time
	if err := back.UnmarshalJSON(b); err != nil {
		return time.Time{}, false
	}
	return back, true
}
