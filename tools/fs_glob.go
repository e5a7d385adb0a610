package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// globMaxResults caps the paths glob returns.
const globMaxResults = 500

type globTool struct{ c *contained }

func (t *globTool) Name() string { return "glob" }

func (t *globTool) Description() string {
	return "Find files and directories in the workspace whose path matches a glob pattern. " +
		"\"*\" matches within one path segment, \"**\" matches any number of segments, so \"**/*.md\" finds Markdown files at any depth " +
		"and \"notes/*.txt\" only directly inside notes. \"?\" and [classes] work as usual; braces do not. " +
		"Results are paths relative to the workspace, sorted, directories ending in \"/\"; " +
		fmt.Sprintf("at most %d are returned. .git directories are skipped.", globMaxResults)
}

func (t *globTool) Parameters() json.RawMessage {
	return globSchema.get()
}

type globArgs struct {
	Pattern *string `json:"pattern" jsonschema:"Glob pattern relative to path, e.g. \"**/*.go\" or \"docs/*.md\"."`
	Path    *string `json:"path,omitempty" jsonschema:"Directory to search from, relative to the workspace (or absolute inside it). Default: the workspace itself."`
}

var globSchema = lazySchema{of: (*globArgs)(nil)}

func (t *globTool) Execute(ctx context.Context, raw json.RawMessage) (string, error) {
	const name = "glob"
	var a globArgs
	if err := decodeArgs(name, raw, &a); err != nil {
		return "", err
	}
	if a.Pattern == nil {
		return "", missing(name, "pattern")
	}
	pat, err := parseGlob(*a.Pattern)
	if err != nil {
		return "", errorf("%s: %w", name, err)
	}
	p := pathOrDot(a.Path)
	fi, base, err := t.c.stat(p)
	if err != nil {
		return "", errorf("%s: %w", name, err)
	}
	if !fi.IsDir() {
		return "", errorf("%s: path %q is a file; path must be a directory to search in", name, p)
	}

	var found []string
	err = t.c.walk(ctx, base, func(e walkEntry) error {
		if e.path == base {
			return nil
		}
		rel, err := filepath.Rel(base, e.path)
		if err != nil {
			return nil
		}
		segs := strings.Split(filepath.ToSlash(rel), "/")
		if pat.match(segs) {
			shown := t.c.rel(e.path)
			if e.isDir {
				shown += "/"
			}
			found = append(found, shown)
		}
		if e.isDir && !e.link && !pat.couldMatchBelow(segs) {
			return filepath.SkipDir
		}
		return nil
	})
	if err != nil {
		return "", errorf("%s: searching %q: %w", name, p, unwrapPathErr(err))
	}
	if len(found) == 0 {
		return fmt.Sprintf("no paths match %q under %s", *a.Pattern, t.c.rel(base)), nil
	}
	slices.Sort(found)
	var b strings.Builder
	for i, f := range found {
		if i == globMaxResults {
			fmt.Fprintf(&b, "[truncated: %d of %d matches shown; use a narrower pattern or path]\n", globMaxResults, len(found))
			break
		}
		b.WriteString(f)
		b.WriteByte('\n')
	}
	return b.String(), nil
}
