// Package workspace creates joshbot's workspace: the folder of identity
// files, long-term memory and user files the agent works in.
package workspace

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

//go:embed templates/*.md
var templates embed.FS

// Init creates dir (0700) and writes each starter file that does not exist
// yet. It never overwrites a file, so running onboard again keeps every
// edit. It returns the names of the files it created.
func Init(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create workspace %s: %w", dir, err)
	}
	entries, err := fs.ReadDir(templates, "templates")
	if err != nil {
		return nil, err
	}
	var created []string
	for _, e := range entries {
		data, err := templates.ReadFile("templates/" + e.Name())
		if err != nil {
			return created, err
		}
		path := filepath.Join(dir, e.Name())
		// O_EXCL makes "never overwrite" hold even against a file created
		// between a check and the write.
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return created, fmt.Errorf("create %s: %w", path, err)
		}
		_, werr := f.Write(data)
		cerr := f.Close()
		if werr != nil || cerr != nil {
			return created, fmt.Errorf("write %s: %w", path, errors.Join(werr, cerr))
		}
		created = append(created, e.Name())
	}
	return created, nil
}
