package runtime

import (
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/joshbot/joshbot/joshbot/internal/config"
)

// privateDirs are the state directories whose whole contents are private.
var privateDirs = []string{"sessions", "memory"}

// TightenHome puts the state back to owner-only modes: sessions/ and
// memory/ with everything in them, and, when home is joshbot's own state
// directory ($JOSHBOT_HOME, else ~/.joshbot), home itself and the files
// directly in it, become 0700 (directories) and 0600 (files). A home
// that is only the directory of a --config file elsewhere may hold the
// operator's other files, so only its sessions/ and memory/ are touched. A file copied in, a
// restore from a backup or a umask can loosen them between runs; every
// start re-applies the modes. Links are not followed. One warning names
// how many paths were loosened, with a few of them; nothing is logged
// when all were already private. Errors are logged, not returned: a mode
// that cannot be changed does not keep the operator from their state.
func TightenHome(home string, log *slog.Logger) {
	if log == nil {
		log = slog.Default()
	}
	var fixed, failed []string
	fix := func(p string, d fs.DirEntry) {
		if d.Type()&fs.ModeSymlink != 0 || (!d.IsDir() && !d.Type().IsRegular()) {
			return
		}
		fi, err := d.Info()
		if err != nil {
			return
		}
		want := fs.FileMode(0o600)
		if d.IsDir() {
			want = 0o700
		}
		if fi.Mode().Perm() == want {
			return
		}
		if err := os.Chmod(p, want); err != nil {
			failed = append(failed, config.Tilde(p)+": "+err.Error())
			return
		}
		fixed = append(fixed, config.Tilde(p))
	}
	entries, err := os.ReadDir(home)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			log.Warn("could not check the state directory's modes", "dir", config.Tilde(home), "err", err)
		}
		return
	}
	own := false
	if def, err := config.Home(); err == nil {
		a, errA := filepath.Abs(def)
		b, errB := filepath.Abs(home)
		own = errA == nil && errB == nil && a == b
	}
	if fi, err := os.Lstat(home); own && err == nil && fi.IsDir() {
		fix(home, fs.FileInfoToDirEntry(fi))
	}
	for _, e := range entries {
		p := filepath.Join(home, e.Name())
		if !e.IsDir() {
			if own {
				fix(p, e)
			}
			continue
		}
		for _, name := range privateDirs {
			if e.Name() != name {
				continue
			}
			_ = filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
				if err != nil {
					failed = append(failed, config.Tilde(q)+": "+err.Error())
					if d != nil && d.IsDir() {
						return fs.SkipDir
					}
					return nil
				}
				fix(q, d)
				return nil
			})
		}
	}
	if len(fixed) > 0 {
		log.Warn("state files were readable by others; made them owner-only again (0700 directories, 0600 files)",
			"count", len(fixed), "examples", strings.Join(fixed[:min(len(fixed), 3)], ", "))
	}
	if len(failed) > 0 {
		log.Warn("could not make some state files owner-only; fix their modes with chmod",
			"count", len(failed), "examples", strings.Join(failed[:min(len(failed), 3)], "; "))
	}
}
