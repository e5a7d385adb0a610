package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// cachedProbe is the content of an [Options.ProbeCache] file.
type cachedProbe struct {
	// Key hashes everything that can change the probe's answer without
	// a new build of this program (see probeKey).
	Key    string
	Report Report
}

// probeCacheMagic is the first line of a probe cache file. The file is
// lines of a name, a space and a value, read without encoding/json: its
// reflection cost a start more page faults than the rest of the read.
const probeCacheMagic = "joshbot-sandbox-probe 1"

// encode returns the file's content, or false when a value holds a
// newline and cannot be kept.
func (c cachedProbe) encode() ([]byte, bool) {
	r := &c.Report
	lines := []string{probeCacheMagic, "key " + c.Key, "platform " + r.Platform, "mechanism " + r.Mechanism,
		"landlock_abi " + strconv.Itoa(r.LandlockABI), "available " + strconv.FormatBool(r.Available),
		"can_deny_network " + strconv.FormatBool(r.CanDenyNetwork), "reason " + r.Reason}
	for _, l := range []Layer{r.Namespaces, r.IDMappedMounts, r.Seccomp, r.Landlock} {
		lines = append(lines, "layer "+strconv.FormatBool(l.Available)+" "+l.Detail)
	}
	for _, l := range lines {
		if strings.ContainsAny(l, "\n\r") {
			return nil, false
		}
	}
	return []byte(strings.Join(lines, "\n") + "\n"), true
}

// decodeCachedProbe parses what encode wrote; false means the file is
// not one (torn, another version, edited).
func decodeCachedProbe(b []byte) (cachedProbe, bool) {
	var c cachedProbe
	lines := strings.Split(string(b), "\n")
	if len(lines) != 13 || lines[0] != probeCacheMagic || lines[12] != "" {
		return c, false
	}
	val := func(i int, name string) (string, bool) {
		return strings.CutPrefix(lines[i], name+" ")
	}
	r := &c.Report
	var ok [12]bool
	var abi, avail, deny string
	c.Key, ok[0] = val(1, "key")
	r.Platform, ok[1] = val(2, "platform")
	r.Mechanism, ok[2] = val(3, "mechanism")
	abi, ok[3] = val(4, "landlock_abi")
	avail, ok[4] = val(5, "available")
	deny, ok[5] = val(6, "can_deny_network")
	r.Reason, ok[6] = val(7, "reason")
	layers := []*Layer{&r.Namespaces, &r.IDMappedMounts, &r.Seccomp, &r.Landlock}
	for i, l := range layers {
		v, found := val(8+i, "layer")
		a, detail, _ := strings.Cut(v, " ")
		var err error
		l.Available, err = strconv.ParseBool(a)
		l.Detail = detail
		ok[7+i] = found && err == nil
	}
	ok[11] = true
	var err1, err2, err3 error
	r.LandlockABI, err1 = strconv.Atoi(abi)
	r.Available, err2 = strconv.ParseBool(avail)
	r.CanDenyNetwork, err3 = strconv.ParseBool(deny)
	for _, o := range ok {
		if !o {
			return c, false
		}
	}
	return c, err1 == nil && err2 == nil && err3 == nil
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
		if c, ok := decodeCachedProbe(b); ok && c.Key == key && c.Report.Available && c.Report.Platform == runtime.GOOS {
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
	b, ok := c.encode()
	if !ok {
		return errors.New("sandbox: the probe report holds a line break")
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
