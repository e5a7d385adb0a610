package discord

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/memory/atomicfile"
)

// Bounds of the catch-up after a fresh gateway session.
const (
	// DefaultCatchUpAge is how old a missed message may be and still be
	// answered: like Telegram, which keeps undelivered updates for a day.
	DefaultCatchUpAge = 24 * time.Hour
	// maxTracked is how many conversations keep a cursor; the least
	// recently active is forgotten first.
	maxTracked = 256
	// catchUpPage is Discord's largest page of channel history.
	catchUpPage = 100
	// maxCatchUpPages bounds the messages fetched per conversation.
	maxCatchUpPages = 10
)

// cursor is where one conversation's catch-up starts.
type cursor struct {
	// Last is the newest message id handed over (or skipped on purpose).
	Last string `json:"last"`
	// Guild is the conversation's guild id, "" for a direct message:
	// messages fetched over REST do not carry it.
	Guild string `json:"guild,omitempty"`
	// Seen is when the conversation last had a message.
	Seen time.Time `json:"seen"`
}

// cursorFile is the on-disk form of the cursors.
type cursorFile struct {
	Version       int               `json:"version"`
	Conversations map[string]cursor `json:"conversations"`
}

// cursors remembers, per conversation the bot takes part in, the newest
// message it has handed over, in Options.CursorFile. Losing an update
// costs only a refetch (the sink drops what it has already recorded), so
// the file is replaced atomically but not synced.
type cursors struct {
	path string
	log  *slog.Logger

	mu sync.Mutex
	m  map[string]cursor
}

// load reads the cursor file. A missing file is an empty one; an
// unreadable one is reported and replaced on the next save.
func (c *cursors) load() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m = map[string]cursor{}
	if c.path == "" {
		return
	}
	data, err := os.ReadFile(c.path)
	if errors.Is(err, os.ErrNotExist) {
		return
	}
	var f cursorFile
	if err == nil {
		err = json.Unmarshal(data, &f)
	}
	if err != nil {
		c.log.Warn("catch-up cursors unreadable; starting without them, so messages sent while the gateway was down are not fetched this time", "path", c.path, "err", err)
		return
	}
	for ch, cur := range f.Conversations {
		if validSnowflake(ch) && validSnowflake(cur.Last) {
			c.m[ch] = cur
		}
	}
}

// advance moves ch's cursor to id when id is newer. An untracked
// conversation starts being tracked only when track is set: the bot
// answered in it.
func (c *cursors) advance(ch, guild, id string, track bool, now time.Time) {
	if c.path == "" || !validSnowflake(ch) || !validSnowflake(id) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	cur, ok := c.m[ch]
	if !ok && !track {
		return
	}
	if ok && !newer(id, cur.Last) {
		return
	}
	if !ok {
		cur.Guild = guild
	}
	cur.Last, cur.Seen = id, now
	c.m[ch] = cur
	if len(c.m) > maxTracked {
		oldest := ""
		for k, v := range c.m {
			if oldest == "" || v.Seen.Before(c.m[oldest].Seen) {
				oldest = k
			}
		}
		delete(c.m, oldest)
	}
	c.saveLocked()
}

// handled reports whether id is at or before ch's cursor: a tracked
// conversation's messages up to the cursor were all handed over (or
// skipped as too old), the live event catch-up already fetched included.
func (c *cursors) handled(ch, id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	cur, ok := c.m[ch]
	return ok && validSnowflake(id) && !newer(id, cur.Last)
}

// forget stops tracking ch (the bot lost access to it).
func (c *cursors) forget(ch string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[ch]; ok {
		delete(c.m, ch)
		c.saveLocked()
	}
}

// tracked is one conversation's cursor.
type tracked struct {
	ch  string
	cur cursor
}

// snapshot returns the tracked conversations, most recently active first.
func (c *cursors) snapshot() []tracked {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]tracked, 0, len(c.m))
	for ch, cur := range c.m {
		out = append(out, tracked{ch, cur})
	}
	sort.Slice(out, func(i, j int) bool { return out[j].cur.Seen.Before(out[i].cur.Seen) })
	return out
}

func (c *cursors) saveLocked() {
	data, err := json.MarshalIndent(cursorFile{Version: 1, Conversations: c.m}, "", "  ")
	if err == nil {
		err = writeReplace(c.path, data)
	}
	if err != nil {
		c.log.Warn("catch-up cursor not saved; a restart may refetch messages already handled", "path", c.path, "err", err)
	}
}

// writeReplace replaces path with data durably through package
// atomicfile, so a reader, or the gateway after a crash, sees the old file
// or the new one, whole.
func writeReplace(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, data, 0o600)
}

// validSnowflake reports whether s is a decimal Discord id.
func validSnowflake(s string) bool {
	if s == "" || len(s) > 20 {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// newer reports whether snowflake a is after b (both decimal, no leading
// zeros, as Discord writes them).
func newer(a, b string) bool {
	if len(a) != len(b) {
		return len(a) > len(b)
	}
	return a > b
}

// catchUp fetches, for every tracked conversation, the messages that
// arrived while no gateway session was open, and handles them oldest
// first like live ones. It runs on the event goroutine when a new session
// is ready, so live events wait until it is done and order is kept. A
// message the sink already recorded is dropped there, so overlap with what
// was handled before the restart does no harm.
func (d *Discord) catchUp(ctx context.Context, sink channels.Sink) {
	for _, t := range d.cursors.snapshot() {
		if ctx.Err() != nil {
			return
		}
		d.catchUpConversation(ctx, sink, t.ch, t.cur)
	}
}

func (d *Discord) catchUpConversation(ctx context.Context, sink channels.Sink, ch string, cur cursor) {
	cutoff := d.now().Add(-d.catchUpAge)
	after := cur.Last
	handled, stale := 0, 0
	for page := 0; ; page++ {
		if page == maxCatchUpPages {
			d.log.Warn("catch-up stopped: more missed messages than it fetches", "conversation", ch, "fetched", page*catchUpPage)
			break
		}
		msgs, err := d.s.ChannelMessages(ch, catchUpPage, "", after, "", discordgo.WithContext(ctx))
		if err != nil {
			var rest *discordgo.RESTError
			if errors.As(err, &rest) && rest.Response != nil &&
				(rest.Response.StatusCode == http.StatusForbidden || rest.Response.StatusCode == http.StatusNotFound) {
				d.log.Info("catch-up: the conversation is gone or closed to the bot; no longer tracked", "conversation", ch)
				d.cursors.forget(ch)
				return
			}
			if ctx.Err() == nil {
				d.log.Warn("catch-up failed; messages sent while the gateway was down may go unanswered", "conversation", ch, "err", d.scrub(err))
			}
			return
		}
		// Discord lists newest first; hand them over oldest first.
		slices.SortFunc(msgs, func(a, b *discordgo.Message) int {
			if a.ID == b.ID {
				return 0
			}
			if newer(a.ID, b.ID) {
				return 1
			}
			return -1
		})
		for _, m := range msgs {
			if m == nil || !validSnowflake(m.ID) || !newer(m.ID, after) {
				continue
			}
			after = m.ID
			if m.ChannelID == "" {
				m.ChannelID = ch
			}
			if m.GuildID == "" {
				m.GuildID = cur.Guild
			}
			if at, err := discordgo.SnowflakeTimestamp(m.ID); err == nil && at.Before(cutoff) {
				stale++
				d.cursors.advance(ch, cur.Guild, m.ID, false, d.now())
				continue
			}
			if !d.handleRetrying(ctx, sink, m) {
				return // shutting down; the cursor stays before m
			}
			handled++
		}
		if len(msgs) < catchUpPage {
			break
		}
	}
	if handled > 0 {
		d.log.Info("caught up on messages sent while the gateway was down", "conversation", ch, "messages", handled)
	}
	if stale > 0 {
		d.log.Warn(fmt.Sprintf("catch-up: messages older than %s left unanswered", d.catchUpAge), "conversation", ch, "messages", stale)
	}
}
