package tools

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// walkEntry is one thing found by contained.walk.
type walkEntry struct {
	// path is where the entry sits in the tree, which is what the model is
	// shown. It is inside the workspace.
	path string
	// target is what to open to read the entry: path itself, or for a
	// symbolic link the resolved target, which is also inside the workspace.
	target string
	isDir  bool
	// link marks a symbolic link. A linked directory is reported but never
	// descended, so a loop or a link to a huge tree elsewhere in the
	// workspace cannot make a walk explode.
	link bool
}

// skipDirName reports directories the walking tools never enter: version
// control internals are noise for the model and can be enormous.
func skipDirName(name string) bool {
	return name == ".git"
}

// walk visits the tree under base (a path from resolve) in lexical order,
// without following symbolic links out of the workspace: a link whose
// target is outside is skipped, a link to a directory is not descended.
// Unreadable subdirectories are skipped rather than ending the walk. If fn
// returns filepath.SkipDir for a directory, that directory is not entered;
// filepath.SkipAll ends the walk cleanly.
func (c *contained) walk(ctx context.Context, base string, fn func(walkEntry) error) error {
	return filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if err != nil {
			if p == base {
				return err
			}
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		e := walkEntry{path: p, target: p, isDir: d.IsDir()}
		if d.Type()&fs.ModeSymlink != 0 {
			t, ok := c.insideTarget(p)
			if !ok {
				return nil
			}
			fi, err := os.Stat(t)
			if err != nil {
				return nil
			}
			e.target, e.isDir, e.link = t, fi.IsDir(), true
		}
		if d.IsDir() && p != base && skipDirName(d.Name()) {
			return filepath.SkipDir
		}
		return fn(e)
	})
}

// readDir lists the directory at real (a path from resolve), sorted by
// name, through a handle opened by the contained walk.
func (c *contained) readDir(real string) ([]fs.DirEntry, error) {
	f, err := c.openReal(real, os.O_RDONLY|dirFlag)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	return entries, err
}
