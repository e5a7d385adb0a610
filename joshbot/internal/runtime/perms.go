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

// readDirForModes lists a directory for tightenHome (a variable so a test
// can count the listings).
var readDirForModes = os.ReadDir

// fileCheckEvery is how long a walk that found every file of a tree
// private holds: within it, starts re-check only the directories.
const fileCheckEvery = time.Hour

// TightenHome puts the state back to owner-only modes: sessions/ and
// memory/ with everything in them, and, when home is joshbot's own state
// directory ($JOSHBOT_HOME, else ~/.joshbot), home itself and the files
// directly in it, become 0700 (directories) and 0600 (files). A home
// that is only the directory of a --config file elsewhere may hold the
// operator's other files, so only its sessions/ and memory/ are touched.
//
// A file copied in, a restore from a backup or a umask can loosen them
// between runs, so every start re-applies the modes of every directory,
// which alone keeps the files in them out of other users' reach. The
// files themselves are examined when no walk has found the tree private
// within the last hour (a stamp, .modes-checked, in the tree's top
// directory), or, in a directory whose own mode had loosened (a chmod
// -R), at once. Joshbot's own writes change the directories on every
// turn, so their modification times cannot tell a copied-in file apart;
// the hour keeps start-up from growing with the number of stored
// sessions while a loosened file is still found within the hour.
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
	// fix returns whether p had to be changed, and what it read of p
	// (nil when p is skipped or unreadable).
	fix := func(p string, d fs.DirEntry) (bool, fs.FileInfo) {
		if d.Type()&fs.ModeSymlink != 0 || (!d.IsDir() && !d.Type().IsRegular()) {
			return false, nil
		}
		if !d.IsDir() {
			examined++
		}
		fi, err := d.Info()
		if err != nil {
			return false, nil
		}
		want := fs.FileMode(0o600)
		if d.IsDir() {
			want = 0o700
		}
		if fi.Mode().Perm() == want {
			return false, fi
		}
		if err := os.Chmod(p, want); err != nil {
			failed = append(failed, config.Tilde(p)+": "+err.Error())
			return false, fi
		}
		fixed = append(fixed, config.Tilde(p))
		return true, fi
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
		fresh := false
		if fi, err := os.Lstat(stamp); err == nil && fi.Mode().IsRegular() {
			age := start.Sub(fi.ModTime())
			fresh = age >= 0 && age < fileCheckEvery
		}
		failedBefore := len(failed)
		var walk func(dir string, d fs.DirEntry)
		walk = func(dir string, d fs.DirEntry) {
			loosened, fi := fix(dir, d) // always: directories are checked every start
			check := !fresh || loosened
			if !check && fi != nil && holdsNoDirectories(fi) {
				// Its files were found private within the hour; unless it
				// holds directories to check, reading it (all the sessions'
				// names, at every start) finds nothing to do.
				return
			}
			kids, err := readDirForModes(dir)
			if err != nil {
				failed = append(failed, config.Tilde(dir)+": "+err.Error())
				return
			}
			for _, k := range kids {
				q := filepath.Join(dir, k.Name())
				switch {
				case k.IsDir():
					walk(q, k)
				case check && k.Name() != modesStamp:
					fix(q, k)
				}
			}
		}
		walk(p, e)
		if !fresh && len(failed) == failedBefore {
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
