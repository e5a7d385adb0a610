package release

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

// BuildProxy writes every published module of the tree at root, at its
// declared version, into dir in the layout of a file-system module proxy
// (GOPROXY=file://dir): <escaped path>/@v/list, <version>.info, .mod and .zip.
// Each module is zipped with golang.org/x/mod/zip from a temporary copy of its
// files that git tracks or would track (ignored files such as node_modules
// stay out), with its sibling requires rewritten to the declared versions, as
// the tagged tree would have them. The tree itself is not modified.
func BuildProxy(root string, vers *Versions, dir string) error {
	for _, m := range vers.Modules {
		if err := addToProxy(root, vers, m, dir); err != nil {
			return fmt.Errorf("%s %s: %w", m.Path, m.Version, err)
		}
	}
	return nil
}

func addToProxy(root string, vers *Versions, m Module, dir string) error {
	src := filepath.Join(root, m.Dir())
	out, err := Git(src, "ls-files", "-z", "--cached", "--others", "--exclude-standard", ".")
	if err != nil {
		return err
	}
	var files []string
	for _, f := range strings.Split(out, "\x00") {
		if f == "" {
			continue
		}
		if fi, err := os.Lstat(filepath.Join(src, f)); err != nil || !fi.Mode().IsRegular() {
			continue // deleted in the work tree, or a symbolic link (not allowed in module zips)
		}
		files = append(files, f)
	}
	tmp, err := os.MkdirTemp("", "joshbot-zip-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := copyTree(src, tmp, files); err != nil {
		return err
	}
	gomod, err := os.ReadFile(filepath.Join(tmp, "go.mod"))
	if err != nil {
		return err
	}
	if gomod, err = RewriteRequires(gomod, vers); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, "go.mod"), gomod, 0o644); err != nil {
		return err
	}
	esc, err := module.EscapePath(m.Path)
	if err != nil {
		return err
	}
	vdir := filepath.Join(dir, filepath.FromSlash(esc), "@v")
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		return err
	}
	zf, err := os.Create(filepath.Join(vdir, m.Version+".zip"))
	if err != nil {
		return err
	}
	if err := modzip.CreateFromDir(zf, module.Version{Path: m.Path, Version: m.Version}, tmp); err != nil {
		zf.Close()
		return err
	}
	if err := zf.Close(); err != nil {
		return err
	}
	info, _ := json.Marshal(struct {
		Version string
		Time    time.Time
	}{m.Version, time.Now().UTC().Truncate(time.Second)})
	if err := os.WriteFile(filepath.Join(vdir, m.Version+".info"), info, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(vdir, m.Version+".mod"), gomod, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(vdir, "list"), []byte(m.Version+"\n"), 0o644)
}
