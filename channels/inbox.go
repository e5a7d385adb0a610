package channels

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/joshbot/joshbot/memory/atomicfile"
)

// inbox is a durable queue of accepted messages: one file per message in a
// directory, written atomically and synced before Deliver returns, so a
// message acknowledged to the platform survives a crash. A file moves from
// pending (.json) to running (.run) when its turn starts and is removed
// when the turn ends, so after a crash the router knows which turns never
// started (run them) and which were cut off (report them, never rerun:
// the user may already have seen half an answer).
type inbox struct {
	dir string
	mu  sync.Mutex
	seq uint64
	now func() time.Time
	// wrap, when set, wraps each record write (tests play a full disk).
	wrap func(write func() error) error
}

// inboxRecord is what a pending file holds.
type inboxRecord struct {
	Seq      uint64    `json:"seq"`
	Received time.Time `json:"received"`
	Inbound  Inbound   `json:"inbound"`
}

// entry is a record with the file that holds it.
type entry struct {
	name string // file name without extension
	rec  inboxRecord
}

const (
	pendingExt = ".json"
	runningExt = ".run"
)

func openInbox(dir string, now func() time.Time) (*inbox, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, errorf("inbox %s: %w", dir, err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return nil, errorf("inbox %s: %w", dir, err)
	}
	// A write killed between its temp file and the rename leaves the temp
	// file behind; nothing else would remove it.
	atomicfile.Sweep(dir, time.Minute)
	return &inbox{dir: dir, now: now}, nil
}

// load returns the pending and running entries in arrival order. A file
// that cannot be read is moved aside (.bad) with its bytes intact and
// reported, never silently dropped.
func (b *inbox) load() (pending, running []entry, bad []string, err error) {
	des, err := os.ReadDir(b.dir)
	if err != nil {
		return nil, nil, nil, errorf("inbox %s: %w", b.dir, err)
	}
	for _, de := range des {
		name := de.Name()
		ext := filepath.Ext(name)
		if ext != pendingExt && ext != runningExt {
			continue
		}
		data, err := os.ReadFile(filepath.Join(b.dir, name))
		var rec inboxRecord
		if err == nil {
			err = json.Unmarshal(data, &rec)
		}
		if err != nil {
			os.Rename(filepath.Join(b.dir, name), filepath.Join(b.dir, name+".bad"))
			bad = append(bad, name)
			continue
		}
		e := entry{name: strings.TrimSuffix(name, ext), rec: rec}
		if rec.Seq > b.seq {
			b.seq = rec.Seq
		}
		if ext == pendingExt {
			pending = append(pending, e)
		} else {
			running = append(running, e)
		}
	}
	byArrival := func(es []entry) {
		sort.Slice(es, func(i, j int) bool { return es[i].rec.Seq < es[j].rec.Seq })
	}
	byArrival(pending)
	byArrival(running)
	return pending, running, bad, nil
}

// add writes inb durably and returns its entry.
func (b *inbox) add(inb Inbound) (entry, error) {
	b.mu.Lock()
	b.seq++
	rec := inboxRecord{Seq: b.seq, Received: b.now().UTC(), Inbound: inb}
	b.mu.Unlock()
	data, err := json.Marshal(rec)
	if err != nil {
		return entry{}, err
	}
	name := fmt.Sprintf("%020d", rec.Seq)
	write := func() error { return writeSynced(b.dir, name+pendingExt, data) }
	if b.wrap != nil {
		err = b.wrap(write)
	} else {
		err = write()
	}
	if err != nil {
		return entry{rec: rec}, err
	}
	return entry{name: name, rec: rec}, nil
}

// start marks e as running. An entry without a file (see
// [Router.Deliver] on a full disk) has nothing to mark.
func (b *inbox) start(e entry) error {
	if e.name == "" {
		return nil
	}
	return renameSynced(b.dir, e.name+pendingExt, e.name+runningExt)
}

// finish removes e, whatever state it is in.
func (b *inbox) finish(e entry) error {
	if e.name == "" {
		return nil
	}
	var errs []error
	for _, ext := range []string{runningExt, pendingExt} {
		if err := os.Remove(filepath.Join(b.dir, e.name+ext)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// writeSynced writes name in dir durably through package atomicfile, so
// the file exists whole or not at all.
func writeSynced(dir, name string, data []byte) error {
	if err := atomicfile.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
		return errorf("inbox: %w", err)
	}
	return nil
}

func renameSynced(dir, from, to string) error {
	if err := atomicfile.Rename(filepath.Join(dir, from), filepath.Join(dir, to)); err != nil {
		return errorf("inbox: %w", err)
	}
	return nil
}
