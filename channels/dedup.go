package channels

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// dedupLimit is how many message ids the router remembers per file
// generation. Platforms redeliver within minutes or hours, not after ten
// thousand newer messages.
const dedupLimit = 10000

// dedup remembers which (channel, message id) pairs were accepted, on
// disk, so a redelivery after a restart is still recognised. The log is
// append-only with one key per line and is rewritten with only the newest
// keys when it grows past twice the limit.
type dedup struct {
	path string

	mu    sync.Mutex
	seen  map[string]struct{}
	order []string
	f     *os.File
}

func dedupKey(channel, id string) string {
	// Tabs and newlines cannot appear in a key, or the log's lines would
	// split; both sides are platform ids, so replacing them loses nothing.
	r := strings.NewReplacer("\t", " ", "\n", " ", "\r", " ")
	return r.Replace(channel) + "\t" + r.Replace(id)
}

// maxDedupLine bounds one line of the dedup log. A key is a channel name
// and a platform id, a few dozen bytes; a line longer than this was not
// written by the router, and reading it whole would only cost memory.
const maxDedupLine = 4096

// openDedup loads the log at path. A log the router cannot have written
// (a line over maxDedupLine) is moved aside to path+".corrupt" with its
// bytes intact, and the keys it held that still read well are kept;
// quarantined names that file, for the caller to warn about. A damaged
// log never stops the gateway: at worst a redelivery of an old message is
// not recognised.
func openDedup(path string) (d *dedup, quarantined string, err error) {
	d = &dedup{path: path, seen: make(map[string]struct{})}
	f, err := os.Open(path)
	switch {
	case err == nil:
		bad, rerr := d.load(f)
		f.Close()
		if rerr != nil {
			return nil, "", errorf("dedup log %s: %w", path, rerr)
		}
		if bad {
			quarantined = path + ".corrupt"
			if err := os.Rename(path, quarantined); err != nil {
				return nil, "", errorf("dedup log %s: set the unreadable file aside: %w", path, err)
			}
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, "", errorf("dedup log %s: %w", path, err)
	}
	if err := d.rewrite(); err != nil {
		return nil, "", err
	}
	return d, quarantined, nil
}

// load remembers every key of r and reports whether a line was too long
// to be one. Lines without a tab (a torn last line) are skipped quietly.
func (d *dedup) load(r io.Reader) (bad bool, err error) {
	br := bufio.NewReaderSize(r, maxDedupLine)
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			bad = true
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			if err == io.EOF {
				return bad, nil
			}
			if err != nil {
				return bad, err
			}
			continue
		}
		if s := strings.TrimSuffix(string(line), "\n"); strings.Contains(s, "\t") {
			d.remember(s)
		}
		if err == io.EOF {
			return bad, nil
		}
		if err != nil {
			return bad, err
		}
	}
}

// remember adds key in memory; callers hold mu or own d exclusively.
func (d *dedup) remember(key string) {
	if _, ok := d.seen[key]; ok {
		return
	}
	d.seen[key] = struct{}{}
	d.order = append(d.order, key)
}

func (d *dedup) has(key string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	_, ok := d.seen[key]
	return ok
}

// add records key durably.
func (d *dedup) add(key string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.seen[key]; ok {
		return nil
	}
	d.remember(key)
	if _, err := d.f.WriteString(key + "\n"); err != nil {
		return errorf("dedup log: %w", err)
	}
	if err := d.f.Sync(); err != nil {
		return errorf("dedup log: %w", err)
	}
	if len(d.order) > 2*dedupLimit {
		return d.rewrite()
	}
	return nil
}

// rewrite keeps the newest dedupLimit keys in a fresh log, atomically.
func (d *dedup) rewrite() error {
	if len(d.order) > dedupLimit {
		for _, k := range d.order[:len(d.order)-dedupLimit] {
			delete(d.seen, k)
		}
		d.order = append([]string(nil), d.order[len(d.order)-dedupLimit:]...)
	}
	var b strings.Builder
	for _, k := range d.order {
		b.WriteString(k)
		b.WriteByte('\n')
	}
	dir := filepath.Dir(d.path)
	if err := writeSynced(dir, filepath.Base(d.path), []byte(b.String())); err != nil {
		return errorf("dedup log: %w", err)
	}
	if d.f != nil {
		d.f.Close()
	}
	f, err := os.OpenFile(d.path, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return errorf("dedup log: %w", err)
	}
	d.f = f
	return nil
}

func (d *dedup) close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.f == nil {
		return nil
	}
	err := d.f.Close()
	d.f = nil
	return err
}
