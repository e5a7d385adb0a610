package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// editMaxBytes bounds the size of a file edit_file will load. Exact-string
// editing of anything larger is better done some other way.
const editMaxBytes = 16 << 20

type editFileTool struct{ c *contained }

func (t *editFileTool) Name() string { return "edit_file" }

func (t *editFileTool) Description() string {
	return "Replace text in an existing workspace file. old_text must match the file exactly, including whitespace and " +
		"indentation, and without the line-number prefixes read_file shows. It must occur exactly once unless replace_all is true; " +
		"if it occurs more than once, include more surrounding lines to make it unique. The write is atomic."
}

func (t *editFileTool) Parameters() json.RawMessage {
	return editFileSchema.get()
}

type editFileArgs struct {
	Path       *string `json:"path" jsonschema:"File to edit, relative to the workspace (or absolute inside it)."`
	OldText    *string `json:"old_text" jsonschema:"Exact text to find. Must not be empty."`
	NewText    *string `json:"new_text" jsonschema:"Text to put in its place. May be empty to delete old_text."`
	ReplaceAll bool    `json:"replace_all,omitempty" jsonschema:"Replace every occurrence instead of requiring exactly one. Default false."`
}

var editFileSchema = lazySchema{of: (*editFileArgs)(nil)}

func (t *editFileTool) Execute(ctx context.Context, raw json.RawMessage) (string, error) {
	const name = "edit_file"
	var a editFileArgs
	if err := decodeArgs(name, raw, &a); err != nil {
		return "", err
	}
	switch {
	case a.Path == nil:
		return "", missing(name, "path")
	case a.OldText == nil:
		return "", missing(name, "old_text")
	case a.NewText == nil:
		return "", missing(name, "new_text")
	case *a.OldText == "":
		return "", errorf("%s: old_text is empty; give the exact text to replace (use write_file to create a file)", name)
	case *a.OldText == *a.NewText:
		return "", errorf("%s: old_text and new_text are identical, so there is nothing to change", name)
	}

	fi, _, err := t.c.stat(*a.Path)
	if err != nil {
		return "", errorf("%s: %w", name, err)
	}
	if fi.IsDir() {
		return "", errorf("%s: path %q is a directory, not a file", name, *a.Path)
	}
	if fi.Size() > editMaxBytes {
		return "", errorf("%s: path %q is %d bytes, over the %d MiB edit limit", name, *a.Path, fi.Size(), editMaxBytes>>20)
	}
	f, real, err := t.c.open(*a.Path)
	if err != nil {
		return "", errorf("%s: %w", name, err)
	}
	if err := t.c.guardWrite(ctx, name, real, fmt.Sprintf("edit_file %s: replace %q with %q", t.c.rel(real), oneLinePreview(*a.OldText, 80), oneLinePreview(*a.NewText, 160))); err != nil {
		f.Close()
		return "", err
	}
	data, err := io.ReadAll(io.LimitReader(f, editMaxBytes+1))
	f.Close()
	if err != nil {
		return "", errorf("%s: reading %q: %w", name, *a.Path, unwrapPathErr(err))
	}
	if isBinary(data) {
		return "", errorf("%s: path %q looks like a binary file (it contains NUL bytes); edit_file only edits text", name, *a.Path)
	}
	content := string(data)
	n := strings.Count(content, *a.OldText)
	switch {
	case n == 0:
		return "", errorf("%s: old_text was not found in %q (0 occurrences); read the file again and copy the text exactly, including whitespace", name, *a.Path)
	case n > 1 && !a.ReplaceAll:
		return "", errorf("%s: old_text occurs %d times in %q; include more surrounding text so it matches exactly once, or set replace_all to true", name, n, *a.Path)
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	// Either there is exactly one occurrence or replace_all asked for all.
	updated := strings.ReplaceAll(content, *a.OldText, *a.NewText)
	if _, err := t.c.writeAtomic(real, []byte(updated), workspaceFilePerm); err != nil {
		return "", errorf("%s: path %q: %w", name, *a.Path, unwrapPathErr(err))
	}
	noun := "occurrence"
	if n != 1 {
		noun = "occurrences"
	}
	return fmt.Sprintf("edited %s: replaced %d %s (%d bytes now)", t.c.rel(real), n, noun, len(updated)), nil
}
