package tools

import (
	"context"
	"encoding/json"
	"fmt"
)

// writeMaxBytes bounds one write_file call. It is far above any file a
// model should produce in one go and only stops a runaway generation from
// filling the disk.
const writeMaxBytes = 16 << 20

type writeFileTool struct{ c *contained }

func (t *writeFileTool) Name() string { return "write_file" }

func (t *writeFileTool) Description() string {
	return "Create or overwrite a file in the workspace with the given content. Missing parent directories are created. " +
		"The write is atomic: the old content stays intact until the new content is complete. " +
		"To change part of an existing file, prefer edit_file."
}

func (t *writeFileTool) Parameters() json.RawMessage {
	return writeFileSchema.get()
}

type writeFileArgs struct {
	Path    *string `json:"path" jsonschema:"File to write, relative to the workspace (or absolute inside it)."`
	Content *string `json:"content" jsonschema:"The complete new content of the file."`
}

var writeFileSchema = lazySchema{of: (*writeFileArgs)(nil)}

func (t *writeFileTool) Execute(ctx context.Context, raw json.RawMessage) (string, error) {
	const name = "write_file"
	var a writeFileArgs
	if err := decodeArgs(name, raw, &a); err != nil {
		return "", err
	}
	if a.Path == nil {
		return "", missing(name, "path")
	}
	if a.Content == nil {
		return "", missing(name, "content")
	}
	if len(*a.Content) > writeMaxBytes {
		return "", errorf("%s: content is %d bytes, over the %d MiB limit; write the file in smaller parts", name, len(*a.Content), writeMaxBytes>>20)
	}
	real, err := t.c.resolve(*a.Path)
	if err != nil {
		return "", errorf("%s: %w", name, err)
	}
	if err := t.c.guardWrite(ctx, name, real, fmt.Sprintf("write_file %s (%d bytes)", t.c.rel(real), len(*a.Content))); err != nil {
		return "", err
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	created, err := t.c.writeAtomic(real, []byte(*a.Content), workspaceFilePerm)
	if err != nil {
		return "", errorf("%s: path %q: %w", name, *a.Path, unwrapPathErr(err))
	}
	verb := "overwrote"
	if created {
		verb = "created"
	}
	return fmt.Sprintf("%s %s (%d bytes written)", verb, t.c.rel(real), len(*a.Content)), nil
}
