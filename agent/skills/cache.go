package skills

import (
	"errors"
	"io/fs"
	"os"
	"sync"
	"time"
)

// fileKey identifies one version of a file (see keyOf).
type fileKey struct {
	dev, ino uint64
	size     int64
	ctime    int64
}

// racyWindow is how old a file's change time must be before what was read
// from it is cached (see keyOf).
const racyWindow = time.Second

// cache keeps what List read from files that have not changed since, so a
// turn's skill index costs a stat per file instead of reading, hashing and
// parsing every SKILL.md and the trust store. An entry is checked against
// the file's current key on every use; nothing is served for a file that
// changed, was replaced or was written within racyWindow.
type cache struct {
	mu     sync.Mutex
	window time.Duration // racyWindow when zero; tests shorten it
	files  map[string]*cachedFile
}

// cachedFile is what was read from one version of a file. It is never
// modified once cached.
type cachedFile struct {
	key   fileKey
	skill Skill             // a SKILL.md, as described (Trusted unset)
	trust map[string]string // the trust store
}

// lookup returns the key of the file fi describes and its entry when that
// version was cached; the key's ok is false when it may not be cached.
func (c *cache) lookup(path string, fi fs.FileInfo) (*cachedFile, fileKey, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	window := c.window
	if window == 0 {
		window = racyWindow
	}
	key, ok := keyOf(fi, time.Now(), window)
	if e := c.files[path]; ok && e != nil && e.key == key {
		return e, key, true
	}
	return nil, key, ok
}

// store caches e under path. The key was taken before the file was read:
// a change in between moves its change time past the key, so the next
// lookup misses and the file is read again.
func (c *cache) store(path string, e *cachedFile) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.files == nil {
		c.files = make(map[string]*cachedFile)
	}
	c.files[path] = e
}

// keep drops the entries of paths not in live.
func (c *cache) keep(live map[string]bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for p := range c.files {
		if !live[p] {
			delete(c.files, p)
		}
	}
}

// readTrustCached is readTrust for List, which only reads the map: the
// store is parsed again only when its file changed.
func (l *Library) readTrustCached() (map[string]string, error) {
	fi, err := os.Stat(l.trustPath)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return l.readTrust()
	}
	e, key, cacheable := l.cache.lookup(l.trustPath, fi)
	if e != nil {
		return e.trust, nil
	}
	m, err := l.readTrust()
	if err == nil && cacheable {
		l.cache.store(l.trustPath, &cachedFile{key: key, trust: m})
	}
	return m, err
}
