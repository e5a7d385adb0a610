package runtime

import (
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/joshbot/joshbot/joshbot/internal/config"
)

// privateDirs are the state directories whose whole contents are private.
var privateDirs = []string{"sessions", "memory"}

// modesStamp is the file, inside each private directory, whose
// modification time records when a walk last found that tree private.
// The session store lists only *.jsonl files, so it is never read as a
// session.
const modesStamp = ".modes-checked"

// stampSlack absorbs coarse file-system clocks: a directory changed
// within this much of the last walk counts as changed.
const stampSlack = 2 * time.Second

// TightenHome puts the state back to owner-only modes: sessions/ and
// memory/ with everything in them, and, when home is joshbot's own state
// directory ($JOSHBOT_HOME, else ~/.joshbot), home itself and the files
// directly in it, become 0700 (directories) and 0600 (files). A home
// that is only the directory of a --config file elsewhere may hold the
// operator's other files, so only its sessions/ and memory/ are touched.
//
// A file copied in, a restore from a backup or a umask can loosen them
// between runs, so every start re-applies the modes of every directory.
// The files of a directory are checked again only when it may hold a
// loosened one: when no walk has found the tree private yet, when an
// entry was added, renamed or removed since the last walk (the
// directory's modification time), or when the directory's own mode had
// loosened (a chmod -R). A file chmod-ed on its own in an unchanged
// directory stays behind that 0700 directory until the next change.
// This keeps start-up from growing with the number of stored sessions.
//
// Links are not followed. One warning names how many paths were
// loosened, with a few of them; nothing is logged when all were already
// private. Errors are logged, not returned: a mode that cannot be
// changed does not keep the operator from their state.
func TightenHome(home string, log *slog.Logger) {
	tightenHome(home, log)
}

// tightenHome is TightenHome returning how many files (not
// directories) it examined, which start-up cost follows.
func tightenHome(home string, log *slog.Logger) (examined int) {
	if log == nil {
		log = slog.Default()
	}
	var fixed, failed []string
	// fix returns whether p had to be changed.
	fix := func(p string, d fs.DirEntry) bool {
		if d.Type()&fs.ModeSymlink != 0 || (!d.IsDir() && !d.Type().IsRegular()) {
			return false
		}
		if !d.IsDir() {
			examined++
		}
		fi, err := d.Info()
		if err != nil {
			return false
		}
		want := fs.FileMode(0o600)
		if d.IsDir() {
			want = 0o700
		}
		if fi.Mode().Perm() == want {
			return false
		}
		if err := os.Chmod(p, want); err != nil {
			failed = append(failed, config.Tilde(p)+": "+err.Error())
			return false
		}
		fixed = append(fixed, config.Tilde(p))
		return true
	}
	entries, err := os.ReadDir(home)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			log.Warn("could not check the state directory's modes", "dir", config.Tilde(home), "err", err)
		}
		return examined
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
		if !slices.Contains(privateDirs, e.Name()) {
			continue
		}
		start := time.Now()
		stamp := filepath.Join(p, modesStamp)
		var since time.Time
		if fi, err := os.Lstat(stamp); err == nil && fi.Mode().IsRegular() {
			since = fi.ModTime().Add(-stampSlack)
		}
		failedBefore := len(failed)
		var walk func(dir string, d fs.DirEntry)
		walk = func(dir string, d fs.DirEntry) {
			loosened := fix(dir, d)
			fi, err := d.Info()
			if err != nil {
				failed = append(failed, config.Tilde(dir)+": "+err.Error())
				return
			}
			changed := since.IsZero() || loosened || !fi.ModTime().Before(since)
			kids, err := os.ReadDir(dir)
			if err != nil {
				failed = append(failed, config.Tilde(dir)+": "+err.Error())
				return
			}
			for _, k := range kids {
				q := filepath.Join(dir, k.Name())
				switch {
				case k.IsDir():
					walk(q, k)
				case changed && k.Name() != modesStamp:
					fix(q, k)
				}
			}
		}
		walk(p, e)
		if len(failed) == failedBefore {
			markChecked(stamp, start)
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
	return examined
}

// markChecked records that the tree holding stamp was found private by a
// walk that began at start. A stamp that cannot be written only means
// the next start checks every file again.
func markChecked(stamp string, start time.Time) {
	fi, err := os.Lstat(stamp)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// O_EXCL: a link planted under the name is not followed.
		f, err := os.OpenFile(stamp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return
		}
		_ = f.Close()
	case err != nil || !fi.Mode().IsRegular():
		return
	}
	_ = os.Chtimes(stamp, start, start)
}
