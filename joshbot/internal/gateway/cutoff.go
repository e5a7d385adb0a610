package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/joshbot/internal/config"
)

// CutOffNote ends a streamed reply the gateway was writing when it died;
// the next start edits the half-written message to end with it.
const CutOffNote = "\n\n⚠️ cut off: joshbot restarted before this answer finished"

// liveRecord is what the gateway keeps on disk about a reply it is
// streaming: enough to finish the message after a crash.
type liveRecord struct {
	Channel      string `json:"channel"`
	Conversation string `json:"conversation"`
	MessageID    string `json:"message_id"`
	// Text is what the message shows, as last reported.
	Text string `json:"text"`
}

// liveSeq tells apart the records of replies started in the same
// nanosecond.
var liveSeq atomic.Int64

// liveDir is where the records of replies being streamed live.
func liveDir(home string) string { return filepath.Join(home, "gateway", "streams") }

// liveTracker records one streamed reply while it is written: each time
// the channel shows it, the record is replaced atomically; when the reply
// finishes, the record is removed. What is left after a crash is what
// [Gateway.finishCutOff] edits.
type liveTracker struct {
	g    *Gateway
	path string
	rec  liveRecord

	mu     sync.Mutex
	done   bool
	warned bool // a failed write was logged
}

// trackLive arranges for stream's live message in inb's conversation to be
// recorded while it is written, when the channel can edit its messages
// afterwards and the stream reports what it shows; otherwise it returns
// nil, which is a tracker that does nothing.
func (g *Gateway) trackLive(ch channels.Channel, stream channels.Stream, inb channels.Inbound) *liveTracker {
	if _, ok := ch.(channels.Editor); !ok {
		return nil
	}
	ss, ok := stream.(channels.ShownStream)
	if !ok {
		return nil
	}
	// A name of its own: the records a previous run left are still being
	// mended while this run's first turns start.
	name := fmt.Sprintf("%d-%d.json", time.Now().UnixNano(), liveSeq.Add(1))
	lt := &liveTracker{g: g, path: filepath.Join(liveDir(g.rt.Home), name),
		rec: liveRecord{Channel: inb.Channel, Conversation: inb.Conversation}}
	ss.OnShown(lt.shown)
	return lt
}

func (lt *liveTracker) shown(id, text string) {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	if lt.done || id == "" {
		return
	}
	lt.rec.MessageID, lt.rec.Text = id, text
	data, err := json.Marshal(lt.rec)
	if err == nil {
		err = config.WriteFileAtomic(lt.path, data)
	}
	if err != nil && !lt.warned {
		lt.warned = true
		lt.g.log.Warn("live reply not recorded; a crash now would leave it half-written in the chat", "channel", lt.rec.Channel, "err", err)
	}
}

// finish removes the record: the reply reached its final form (or was
// handed to the channel to be), so there is nothing to mend after a crash.
func (lt *liveTracker) finish() {
	if lt == nil {
		return
	}
	lt.mu.Lock()
	defer lt.mu.Unlock()
	lt.done = true
	if err := os.Remove(lt.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		lt.g.log.Warn("live reply record not removed; the next start may mark a finished reply as cut off", "path", lt.path, "err", err)
	}
}

// finishCutOff edits each reply a previous run was streaming when it died
// to end with [CutOffNote], on the channels that run now, and removes its
// record. Records of a channel not running now are kept for a later start;
// unreadable ones and stale temporary files are removed.
//
// The records are read at once, before any turn of this run starts; the
// edits, which wait on the network, run in the background, and the
// returned wait blocks until they are done.
func (g *Gateway) finishCutOff(ctx context.Context, byName map[string]channels.Channel) (wait func()) {
	dir := liveDir(g.rt.Home)
	des, err := os.ReadDir(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			g.log.Warn("cut-off replies not checked", "dir", dir, "err", err)
		}
		return func() {}
	}
	type leftover struct {
		path string
		rec  liveRecord
		ed   channels.Editor
	}
	var todo []leftover
	for _, de := range des {
		p := filepath.Join(dir, de.Name())
		if strings.HasSuffix(de.Name(), ".tmp") {
			os.Remove(p) // a write the crash interrupted
			continue
		}
		if !strings.HasSuffix(de.Name(), ".json") {
			continue
		}
		var rec liveRecord
		data, err := os.ReadFile(p)
		if err == nil {
			err = json.Unmarshal(data, &rec)
		}
		if err != nil || rec.MessageID == "" {
			g.log.Warn("unreadable live reply record removed", "path", p, "err", err)
			os.Remove(p)
			continue
		}
		if ed, ok := byName[rec.Channel].(channels.Editor); ok {
			todo = append(todo, leftover{path: p, rec: rec, ed: ed})
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, l := range todo {
			text := strings.TrimRight(l.rec.Text, "\n") + CutOffNote
			ectx, cancel := context.WithTimeout(ctx, 30*time.Second)
			err := l.ed.EditMessage(ectx, l.rec.Conversation, l.rec.MessageID, text)
			cancel()
			if ctx.Err() != nil {
				return // stopping: the next start tries again
			}
			if err != nil {
				// The message may be gone or too old to edit; trying at
				// every start would not change that.
				g.log.Warn("cut-off reply not marked", "channel", l.rec.Channel, "chat", l.rec.Conversation, "err", err)
			} else {
				g.log.Info("marked a reply cut off by a restart", "channel", l.rec.Channel, "chat", l.rec.Conversation)
			}
			if err := os.Remove(l.path); err != nil {
				g.log.Warn("live reply record not removed", "path", l.path, "err", err)
			}
		}
	}()
	return func() { <-done }
}
