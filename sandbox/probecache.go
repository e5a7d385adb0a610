package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
)

// cachedProbe is the content of an [Options.ProbeCache] file.
type cachedProbe struct {
	// Key hashes everything that can change the probe's answer without
	// a new build of this program (see probeKey).
	Key    string `json:"key"`
	Report Report `json:"report"`
}

// probeFor returns what [Probe] finds on this system, from the cache file
// at path when it holds a report made under the same conditions, and
// otherwise from a fresh probe, which is then kept there when it found a
// working sandbox. An unavailable sandbox is never kept, so fixing the
// system takes effect on the next start.
//
// A kept report can be stale only in ways the key does not see (an
// AppArmor or container policy changed since, say). That never weakens
// confinement: the helper applies every layer itself and refuses to run
// the command when one fails, so a stale report can only make a command
// fail where a fresh probe would have made New fail.
func probeFor(path, helperID string) Report {
	if path == "" {
		return probe()
	}
	key := probeKey(helperID)
	if key == "" {
		return probe()
	}
	if b, err := os.ReadFile(path); err == nil {
		var c cachedProbe
		if json.Unmarshal(b, &c) == nil && c.Key == key && c.Report.Available && c.Report.Platform == runtime.GOOS {
			return c.Report
		}
	}
	rep := probe()
	if rep.Available {
		// A cache that cannot be written costs the next start a probe,
		// nothing more, so a failure here is not the caller's.
		_ = writeProbeCache(path, cachedProbe{Key: key, Report: rep})
	}
	return rep
}

// writeProbeCache writes c to path, 0600, atomically: a reader sees the
// old file or the whole new one. It is not synced: a file lost or torn by
// a crash is only a cache miss.
func writeProbeCache(path string, c cachedProbe) error {
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// hashKey returns the hex SHA-256 of the parts, each ended by a NUL.
func hashKey(parts []string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}
