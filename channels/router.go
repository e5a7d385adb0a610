package channels

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// RouterOptions configures a [Router]. Dir is required.
type RouterOptions struct {
	// Dir holds the router's durable state: the inbox and the dedup log.
	Dir string
	// Channels names the enabled channels, so missing allowlists can be
	// warned about at start.
	Channels []string
	// AllowFrom maps a channel to the principals allowed to use it. A
	// channel with no entry, or an empty one, refuses everyone: the
	// default is closed. The single entry "*" admits every sender on
	// purpose. @handles match without regard to case.
	AllowFrom map[string][]string
	// RespondToAll lists channels where a group message triggers the agent
	// even when the bot was not addressed.
	RespondToAll map[string]bool
	// Workers bounds how many conversations run at once; zero means 4.
	// Messages of one conversation always run one at a time, in order.
	Workers int
	// Grace is how long in-flight turns may finish after Run's context
	// ends before their own contexts are cancelled; zero means 30s.
	Grace time.Duration
	// Logger receives the router's logs; nil means slog.Default().
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// AllowFromSetting names a channel's allowlist in [Router.Warnings] and
	// in the log line of a refused sender; a program that reads its
	// allowlists from a config file returns the key. Nil means
	// `RouterOptions.AllowFrom["<channel>"]`.
	AllowFromSetting func(channel string) string
	// SpoolDir is the media spool the adapters save attachments into
	// ([SaveToSpool]). When set, a spool file is removed once the last
	// accepted message carrying it has had its turn, and
	// [Router.SweepSpool] keeps the files messages still wait with. Only
	// files of this directory are ever removed. Empty leaves the spool to
	// the caller.
	SpoolDir string
}

// allowFromName names channel's allowlist (see AllowFromSetting).
func (o *RouterOptions) allowFromName(channel string) string {
	if o.AllowFromSetting == nil {
		return `RouterOptions.AllowFrom["` + channel + `"]`
	}
	return o.AllowFromSetting(channel)
}

// Handler runs the turn for one accepted message. When it returns the
// message is done, whatever the outcome: the handler reports failures to
// the user itself.
type Handler func(ctx context.Context, inb Inbound)

// Router is the gateway's [Sink]: it applies the allowlist and the group
// addressing rule, drops redeliveries, records every accepted message in a
// durable inbox before the platform is acknowledged, and feeds the inbox to
// a [Handler] with per-conversation ordering. It is safe for concurrent
// use.
type Router struct {
	opts  RouterOptions
	log   *slog.Logger
	inbox *inbox
	dedup *dedup
	allow map[string]map[string]bool

	mu       sync.Mutex
	queue    []entry
	notify   chan struct{}
	denied   map[string]time.Time // rate limit of denial logs
	recovery []entry              // running entries found at open
	// refs counts, by spool id, the accepted messages not yet done that
	// carry each spool file (see RouterOptions.SpoolDir).
	refs map[string]int
	// diskFull is set while the inbox cannot record messages for a full
	// disk, so that is logged once.
	diskFull atomic.Bool
}

// isDiskFull reports whether err says the filesystem (or the user's quota)
// is full.
func isDiskFull(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// NewRouter opens (or creates) the router's state in opts.Dir. Messages
// accepted before a crash are queued again; turns a crash cut off are
// handed to Run's interrupted callback.
func NewRouter(opts *RouterOptions) (*Router, error) {
	if opts == nil || opts.Dir == "" {
		return nil, errors.New("channels: router needs a state directory")
	}
	o := *opts
	if o.Workers <= 0 {
		o.Workers = 4
	}
	if o.Grace <= 0 {
		o.Grace = 30 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.SpoolDir != "" {
		abs, err := filepath.Abs(o.SpoolDir)
		if err != nil {
			return nil, errorf("channels: router spool %s: %w", o.SpoolDir, err)
		}
		o.SpoolDir = abs
	}
	r := &Router{opts: o, log: o.Logger, notify: make(chan struct{}, 1), denied: map[string]time.Time{}, refs: map[string]int{}}
	if r.log == nil {
		r.log = slog.Default()
	}
	r.allow = make(map[string]map[string]bool)
	for ch, list := range o.AllowFrom {
		set := map[string]bool{}
		for _, p := range list {
			if p = strings.TrimSpace(p); p != "" {
				set[normPrincipal(p)] = true
			}
		}
		r.allow[ch] = set
	}
	var err error
	if r.inbox, err = openInbox(filepath.Join(o.Dir, "inbox"), o.Now); err != nil {
		return nil, err
	}
	pending, running, bad, err := r.inbox.load()
	if err != nil {
		return nil, err
	}
	for _, name := range bad {
		r.log.Error("unreadable inbox record set aside", "file", name+".bad", "dir", r.inbox.dir)
	}
	var quarantined string
	if r.dedup, quarantined, err = openDedup(filepath.Join(o.Dir, "dedup.log")); err != nil {
		return nil, err
	}
	if quarantined != "" {
		r.log.Warn("dedup log had a line no message id could make; set it aside and kept its readable ids (a redelivery of an older message may be answered again)",
			"file", quarantined)
	}
	// A record written just before a crash may not have reached the dedup
	// log yet; its presence in the inbox is proof enough.
	for _, e := range append(append([]entry(nil), pending...), running...) {
		if e.rec.Inbound.MessageID != "" {
			r.dedup.add(dedupKey(e.rec.Inbound.Channel, e.rec.Inbound.MessageID))
		}
	}
	for _, e := range append(append([]entry(nil), pending...), running...) {
		r.holdLocked(e)
	}
	r.queue = pending
	r.recovery = running
	if len(pending) > 0 {
		r.log.Info("inbox: resuming messages accepted before the restart", "count", len(pending))
	}
	return r, nil
}

// Warnings lists problems an operator should see at start, such as an
// enabled channel whose allowlist admits nobody.
func (r *Router) Warnings() []string {
	var out []string
	chans := append([]string(nil), r.opts.Channels...)
	sort.Strings(chans)
	for _, ch := range chans {
		set := r.allow[ch]
		switch {
		case len(set) == 0:
			out = append(out, fmt.Sprintf("%s is empty, so every sender is refused: add your user id to it", r.opts.allowFromName(ch)))
		case set["*"]:
			out = append(out, fmt.Sprintf("%s contains \"*\": anyone who finds the bot can use its tools", r.opts.allowFromName(ch)))
		}
	}
	return out
}

func normPrincipal(p string) string {
	if strings.HasPrefix(p, "@") {
		return strings.ToLower(p)
	}
	return p
}

// Allowed reports whether principal may use channel.
func (r *Router) Allowed(channel, principal string) bool {
	set := r.allow[channel]
	return set["*"] || (principal != "" && set[normPrincipal(principal)])
}

// Deliver implements [Sink].
func (r *Router) Deliver(ctx context.Context, inb Inbound) error {
	if !inb.Trusted && !r.Allowed(inb.Channel, inb.Principal) {
		r.logDenied(inb)
		return nil
	}
	if !inb.IsDirect && !inb.Mentioned && !r.opts.RespondToAll[inb.Channel] && !inb.Trusted {
		return nil
	}
	if !inb.Trusted {
		// Only a verified transport may pick the agent profile.
		inb.Agent = ""
	}
	key := ""
	if inb.MessageID != "" {
		key = dedupKey(inb.Channel, inb.MessageID)
		if r.dedup.has(key) {
			r.log.Debug("duplicate delivery dropped", "channel", inb.Channel, "message", inb.MessageID)
			return nil
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	// The inbox first: a crash between the two writes leaves a record
	// that NewRouter also counts as seen, so nothing runs twice.
	e, err := r.inbox.add(inb)
	switch {
	case err != nil && isDiskFull(err):
		// Refusing would have the platform redeliver the message every
		// few seconds, unanswered, for as long as the disk stays full.
		// It runs from memory instead (a crash before its turn loses
		// it), and its answer says it was not saved.
		if r.diskFull.CompareAndSwap(false, true) {
			r.log.Warn("the disk is full: messages run without an inbox record (a crash before their turn loses them) until it has room again", "dir", r.inbox.dir, "err", err)
		}
	case err != nil:
		return errorf("channels: record %s message: %w", inb.Channel, err)
	default:
		if r.diskFull.CompareAndSwap(true, false) {
			r.log.Info("the disk has room again: messages are recorded in the inbox", "dir", r.inbox.dir)
		}
	}
	if key != "" {
		if err := r.dedup.add(key); err != nil {
			r.log.Warn("dedup log not written; a redelivery may be answered twice", "err", err)
		}
	}
	r.mu.Lock()
	r.holdLocked(e)
	r.queue = append(r.queue, e)
	r.mu.Unlock()
	select {
	case r.notify <- struct{}{}:
	default:
	}
	return nil
}

func (r *Router) logDenied(inb Inbound) {
	k := inb.Channel + "\x00" + inb.Principal
	now := r.opts.Now()
	r.mu.Lock()
	last, seen := r.denied[k]
	if !seen || now.Sub(last) > 10*time.Minute {
		r.denied[k] = now
		if len(r.denied) > 1000 {
			clear(r.denied)
		}
	}
	r.mu.Unlock()
	if !seen || now.Sub(last) > 10*time.Minute {
		r.log.Warn("message from a sender not in the allowlist ignored",
			"channel", inb.Channel, "sender", inb.Principal, "allowlist", r.opts.allowFromName(inb.Channel))
	}
}

// Run hands accepted messages to h until ctx ends, then waits for the
// turns in flight (cancelling them after the grace period) and returns.
// interrupted, when non-nil, is first called for each turn a crash cut
// off, which is not run again: part of its answer may already have been
// sent.
func (r *Router) Run(ctx context.Context, h Handler, interrupted Handler) error {
	r.mu.Lock()
	recovery := r.recovery
	r.recovery = nil
	r.mu.Unlock()
	for _, e := range recovery {
		if interrupted != nil {
			interrupted(ctx, e.rec.Inbound)
		}
		if err := r.inbox.finish(e); err != nil {
			r.log.Error("inbox record not removed", "err", err)
		}
		r.release(e)
	}

	turnCtx, cancelTurns := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelTurns()
	var wg sync.WaitGroup
	active := map[string]bool{} // conversations with a worker
	done := make(chan string, r.opts.Workers)
	running := 0

	convKey := func(e entry) string { return e.rec.Inbound.Channel + "\x00" + e.rec.Inbound.Conversation }
	// take removes and returns the next entry of conv, if any.
	take := func(conv string) (entry, bool) {
		r.mu.Lock()
		defer r.mu.Unlock()
		for i, e := range r.queue {
			if convKey(e) == conv {
				r.queue = append(r.queue[:i], r.queue[i+1:]...)
				return e, true
			}
		}
		return entry{}, false
	}
	worker := func(conv string, first entry) {
		defer wg.Done()
		for e, ok := first, true; ok; e, ok = take(conv) {
			if turnCtx.Err() != nil {
				break
			}
			if err := r.inbox.start(e); err != nil {
				r.log.Error("inbox record could not be marked running", "err", err)
			}
			h(turnCtx, e.rec.Inbound)
			if err := r.inbox.finish(e); err != nil {
				r.log.Error("inbox record not removed", "err", err)
			}
			r.release(e)
			if ctx.Err() != nil {
				break
			}
		}
		done <- conv
	}
	dispatch := func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		for i := 0; i < len(r.queue) && running < r.opts.Workers; i++ {
			e := r.queue[i]
			conv := convKey(e)
			if active[conv] {
				continue
			}
			r.queue = append(r.queue[:i], r.queue[i+1:]...)
			i--
			active[conv] = true
			running++
			wg.Add(1)
			go worker(conv, e)
		}
	}

	dispatch()
	for {
		select {
		case <-r.notify:
			dispatch()
		case conv := <-done:
			delete(active, conv)
			running--
			dispatch()
		case <-ctx.Done():
			grace := time.AfterFunc(r.opts.Grace, cancelTurns)
			go func() {
				for range done {
				}
			}()
			wg.Wait()
			grace.Stop()
			close(done)
			return ctx.Err()
		}
	}
}

// Close releases the router's files.
func (r *Router) Close() error { return r.dedup.close() }

// spoolIDs returns the spool ids of e's attachments. As for the
// consumer, an attachment is its spool id alone ([Attachment.ID]),
// resolved in the router's own spool: a path from the inbox never
// reaches anything else.
func (r *Router) spoolIDs(e entry) []string {
	if r.opts.SpoolDir == "" {
		return nil
	}
	var ids []string
	for _, a := range e.rec.Inbound.Attachments {
		if _, err := ResolveSpoolID(r.opts.SpoolDir, a.ID()); err == nil {
			ids = append(ids, a.ID())
		}
	}
	return ids
}

// holdLocked counts e's spool files as needed until e is done. r.mu is
// held.
func (r *Router) holdLocked(e entry) {
	for _, id := range r.spoolIDs(e) {
		r.refs[id]++
	}
}

// release ends e's hold on its spool files and removes each one no
// accepted message still needs. A file rewritten after e arrived (the
// same bytes saved again for a message not yet accepted) is left for
// the sweep.
func (r *Router) release(e entry) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, id := range r.spoolIDs(e) {
		if r.refs[id]--; r.refs[id] > 0 {
			continue
		}
		delete(r.refs, id)
		p := filepath.Join(r.opts.SpoolDir, id)
		fi, err := os.Lstat(p)
		if err != nil || (!e.rec.Received.IsZero() && fi.ModTime().After(e.rec.Received)) {
			continue
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			r.log.Warn("attachment not removed from the spool; the sweep will retry", "file", p, "err", err)
		}
	}
}

// SweepSpool removes from RouterOptions.SpoolDir the files older than
// maxAge, as [SweepSpool] does, except those an accepted message still
// waits or runs with. A gateway calls it at start, for the orphans of an
// earlier run, and then now and then. It returns how many files it
// removed.
func (r *Router) SweepSpool(maxAge time.Duration, now time.Time) (int, error) {
	if r.opts.SpoolDir == "" {
		return 0, errors.New("channels: the router has no spool (RouterOptions.SpoolDir)")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return sweepSpool(r.opts.SpoolDir, maxAge, now, func(name string) bool { return r.refs[name] > 0 })
}
