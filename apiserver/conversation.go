package apiserver

import (
	"container/list"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"strings"
	"sync"
)

// DefaultMaxConversations bounds the index of derived conversations when
// Options.MaxConversations is zero.
const DefaultMaxConversations = 4096

// DerivedKeyPrefix starts the session key of a conversation the server
// derived from a request's messages (one without a user field). The rest
// is 16 hex digits. A user field cannot hold a colon, so no explicit
// conversation ("api:" + user) ever has a key of this form.
const DerivedKeyPrefix = "api:chat:"

// head is the digest of a conversation's user and assistant text turns,
// as the client sends them back (see [hashTurns]).
type head [sha256.Size]byte

// conversations is the index that maps the history a client sends to the
// derived conversation it continues. It holds, for each derived
// conversation not running a turn, its head: the digest of the turns the
// client has seen (every user message and every answer as sent). A
// request whose earlier messages hash to a head continues that
// conversation; the entry is taken out for the turn, so a second request
// with the same history while it runs (a double send, a regenerate) forks
// rather than appending to a conversation the client no longer shows. The
// index is in memory and bounded: beyond max idle conversations the one
// used longest ago is forgotten, and a later request continuing it forks
// a new session seeded from the client's history, as after a restart.
type conversations struct {
	mu    sync.Mutex
	max   int
	heads map[head][]*list.Element // of *convEntry, oldest first
	lru   *list.List               // front: most recently recorded
}

type convEntry struct {
	head head
	key  string
}

func newConversations(max int) *conversations {
	if max <= 0 {
		max = DefaultMaxConversations
	}
	return &conversations{max: max, heads: make(map[head][]*list.Element), lru: list.New()}
}

// claim returns a conversation whose head is h and takes it out of the
// index until [conversations.record] puts its new head back. When several
// conversations stand at the same transcript (two chats opened alike and
// answered alike, which no request can tell apart), the one recorded last
// is taken, and the next request with that history takes the other.
func (c *conversations) claim(h head) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	es := c.heads[h]
	if len(es) == 0 {
		return "", false
	}
	e := es[len(es)-1]
	c.drop(h, len(es)-1)
	c.lru.Remove(e)
	return e.Value.(*convEntry).key, true
}

// drop removes the i-th entry of head h from the map.
func (c *conversations) drop(h head, i int) {
	es := c.heads[h]
	if len(es) == 1 {
		delete(c.heads, h)
		return
	}
	c.heads[h] = append(es[:i:i], es[i+1:]...)
}

// record sets the head of conversation key to h after a turn the client
// received whole.
func (c *conversations) record(key string, h head) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.heads[h] = append(c.heads[h], c.lru.PushFront(&convEntry{head: h, key: key}))
	for c.lru.Len() > c.max {
		old := c.lru.Back()
		c.lru.Remove(old)
		oh := old.Value.(*convEntry).head
		for i, e := range c.heads[oh] {
			if e == old {
				c.drop(oh, i)
				break
			}
		}
	}
}

// len is how many conversations the index holds; tests read it.
func (c *conversations) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}

// hashTurns digests turns as a client's history is compared: role and
// text of each user and assistant turn, the text with surrounding white
// space trimmed (clients differ in keeping a final newline), each length
// prefixed so no two histories share a digest by concatenation. An
// assistant turn with no text counts as none, as in [clientHistory].
func hashTurns(turns []TranscriptMessage) head {
	h := sha256.New()
	var n [8]byte
	for _, t := range turns {
		text := strings.TrimSpace(t.Content)
		if text == "" && t.Role == "assistant" {
			continue // as clientHistory leaves it out
		}
		h.Write([]byte(t.Role[:1]))
		binary.LittleEndian.PutUint64(n[:], uint64(len(text)))
		h.Write(n[:])
		h.Write([]byte(text))
	}
	var out head
	h.Sum(out[:0])
	return out
}

// newDerivedKey names a new derived conversation.
func newDerivedKey() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return DerivedKeyPrefix + hex.EncodeToString(b[:])
}

// clientHistory returns the user and assistant turns of msgs, the
// messages before the request's last one, as they are compared and
// seeded: system and developer messages are left out (they are never
// forwarded to the model, see [turnFromRequest]), as are tool results
// and assistant messages with no text (a client's own tool calls). Only
// the text parts of an array content are read; the request's newest
// message is where an unsupported part is refused.
func clientHistory(msgs []chatMessage) []TranscriptMessage {
	out := make([]TranscriptMessage, 0, len(msgs))
	for i := range msgs {
		m := &msgs[i]
		if m.Role != "user" && m.Role != "assistant" {
			continue
		}
		text := strings.TrimSpace(lenientText(m.Content))
		if text == "" && m.Role == "assistant" {
			continue
		}
		out = append(out, TranscriptMessage{Role: m.Role, Content: text})
	}
	return out
}

// lenientText is a content's text: a string, or the text parts of an
// array joined by newlines, other parts skipped.
func lenientText(c json.RawMessage) string {
	if len(c) == 0 || string(c) == "null" {
		return ""
	}
	if c[0] == '"' {
		var s string
		_ = json.Unmarshal(c, &s)
		return s
	}
	var parts []contentPart
	if json.Unmarshal(c, &parts) != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type != "text" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(p.Text)
	}
	return b.String()
}
