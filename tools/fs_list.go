package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// listMaxEntries caps list_dir output; a directory with more entries is
// better explored with glob.
const listMaxEntries = 1000

type listDirTool struct{ c *contained }

func (t *listDirTool) Name() string { return "list_dir" }

func (t *listDirTool) Description() string {
	return "List a directory in the workspace, sorted by name. Directories end with \"/\", files show their size in bytes, " +
		"symbolic links end with \"@\" and show where they point. " +
		fmt.Sprintf("At most %d entries are shown. Use glob to search a tree.", listMaxEntries)
}

func (t *listDirTool) Parameters() json.RawMessage {
	return listDirSchema.get()
}

type listDirArgs struct {
	Path *string `json:"path,omitempty" jsonschema:"Directory to list, relative to the workspace (or absolute inside it). Default: the workspace itself."`
}

var listDirSchema = lazySchema{of: (*listDirArgs)(nil)}

func (t *listDirTool) Execute(ctx context.Context, raw json.RawMessage) (string, error) {
	const name = "list_dir"
	var a listDirArgs
	if err := decodeArgs(name, raw, &a); err != nil {
		return "", err
	}
	p := pathOrDot(a.Path)
	fi, real, err := t.c.stat(p)
	if err != nil {
		return "", errorf("%s: %w", name, err)
	}
	if !fi.IsDir() {
		return "", errorf("%s: path %q is a file, not a directory; use read_file to read it", name, p)
	}
	entries, err := t.c.readDir(real)
	if err != nil {
		return "", errorf("%s: %w", name, describeOpenErr(p, err))
	}

	var b strings.Builder
	shown := t.c.rel(real)
	if shown != "." {
		shown += "/"
	}
	noun := "entries"
	if len(entries) == 1 {
		noun = "entry"
	}
	fmt.Fprintf(&b, "%s (%d %s)\n", shown, len(entries), noun)
	for i, e := range entries {
		if i == listMaxEntries {
			fmt.Fprintf(&b, "[truncated: %d of %d entries shown; use glob with a pattern to find specific files]\n", listMaxEntries, len(entries))
			break
		}
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return "", err
			}
		}
		b.WriteString(t.describe(real, e))
		b.WriteByte('\n')
	}
	if len(entries) == 0 {
		b.WriteString("(empty directory)\n")
	}
	return b.String(), nil
}

// describe renders one entry. A link's target is named only when it is
// inside the workspace; host paths elsewhere are none of the model's
// business.
func (t *listDirTool) describe(dir string, e fs.DirEntry) string {
	switch {
	case e.Type()&fs.ModeSymlink != 0:
		target, ok := t.c.insideTarget(filepath.Join(dir, e.Name()))
		if !ok {
			return e.Name() + "@ -> (outside the workspace or missing; not accessible)"
		}
		return e.Name() + "@ -> " + t.c.rel(target)
	case e.IsDir():
		return e.Name() + "/"
	default:
		info, err := e.Info()
		if err != nil {
			return e.Name()
		}
		if !info.Mode().IsRegular() {
			return fmt.Sprintf("%s (%s)", e.Name(), info.Mode().Type())
		}
		return fmt.Sprintf("%s  %d bytes", e.Name(), info.Size())
	}
}
