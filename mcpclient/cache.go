package mcpclient

import (
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"github.com/joshbot/joshbot/memory/atomicfile"
)

// manifestCache keeps each server's manifest from the last time it
// answered, in one JSON file written atomically. It is a cache:
// what it holds is used only while the trust store approves its hash.
type manifestCache struct {
	path string
	mu   sync.Mutex
}

type cacheFile struct {
	Version int                 `json:"version"`
	Servers map[string]Manifest `json:"servers"`
}

const cacheVersion = 1

// load returns the cached manifests; a missing or unreadable file is an
// empty cache (logged when it is damaged).
func (c *manifestCache) load(log *slog.Logger) map[string]Manifest {
	c.mu.Lock()
	defer c.mu.Unlock()
	f, err := c.read()
	if err != nil {
		log.Warn("mcp manifest cache unreadable; servers start without it", "path", c.path, "err", err)
	}
	return f.Servers // never nil
}

func (c *manifestCache) read() (cacheFile, error) {
	f := cacheFile{Version: cacheVersion, Servers: map[string]Manifest{}}
	raw, err := os.ReadFile(c.path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, err
	}
	var got cacheFile
	if err := json.Unmarshal(raw, &got); err != nil {
		return f, err
	}
	if got.Version != cacheVersion {
		return f, errorf("version %d, want %d", got.Version, cacheVersion)
	}
	if got.Servers != nil {
		f.Servers = got.Servers
	}
	return f, nil
}

// save records man as server's manifest.
func (c *manifestCache) save(server string, man Manifest) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	f, err := c.read()
	if err != nil {
		f = cacheFile{Version: cacheVersion, Servers: map[string]Manifest{}}
	}
	f.Servers[server] = man
	// Not indented: that would re-indent each schema, and the hash is
	// over its canonical bytes.
	raw, err := json.Marshal(f)
	if err != nil {
		return err
	}
	dir := filepath.Dir(c.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return atomicfile.WriteFile(c.path, append(raw, '\n'), 0o600)
}

// useCached offers the tools of man, a server's cached manifest, when the
// trust store approves exactly its hash. s.mu need not be held: s is not
// yet shared.
func (s *server) useCached(man Manifest) {
	if s.m.trust == nil || man.Tools == nil {
		return
	}
	h := man.Hash()
	if v, _, err := s.m.trust.Check(s.cfg.Name, h); err != nil || v != Trusted {
		return
	}
	s.manifest, s.hash, s.cached = man, h, h
	s.views, s.tools = s.buildTools(man)
	s.offered = make([]string, 0, len(s.tools))
	for _, t := range s.tools {
		s.offered = append(s.offered, t.name)
	}
}
