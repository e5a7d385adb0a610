package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"reflect"
)

// Permissions for what the filesystem tools create. The workspace holds the
// user's own documents, so they get the ordinary umask-style defaults rather
// than the private 0600/0700 used for joshbot's secrets and state.
const (
	workspaceFilePerm fs.FileMode = 0o644
	workspaceDirPerm  fs.FileMode = 0o755
)

// binarySniffLen is how much of a file is checked for NUL bytes to decide
// it is binary, the same heuristic git and grep use.
const binarySniffLen = 8 << 10

// RegisterFilesystem registers the built-in filesystem tools on reg:
// read_file, write_file, edit_file, list_dir, glob and grep. Every one of
// them is confined to workspace, which must be an existing directory; it is
// made absolute and its symbolic links are resolved once, here.
//
// Nothing is registered if any of the six names is already taken.
func RegisterFilesystem(reg *Registry, workspace string) error {
	if reg == nil {
		return errors.New("tools: register filesystem: nil registry")
	}
	c, err := newContained(workspace)
	if err != nil {
		return errorf("tools: register filesystem: %w", err)
	}
	all := []Tool{
		&readFileTool{c: c},
		&writeFileTool{c: c},
		&editFileTool{c: c},
		&listDirTool{c: c},
		&globTool{c: c},
		&grepTool{c: c},
	}
	for _, t := range all {
		if _, taken := reg.Get(t.Name()); taken {
			return errorf("tools: register filesystem: %q: %w", t.Name(), ErrDuplicateTool)
		}
	}
	for _, t := range all {
		if err := reg.Register(t); err != nil {
			return errorf("tools: register filesystem: %w", err)
		}
	}
	return nil
}

// decodeArgs unmarshals a tool's arguments into v. Unknown fields are
// ignored: models often add stray keys, and refusing them helps nobody. A
// type mismatch is reported by argument name so the model can fix the call.
func decodeArgs(tool string, raw json.RawMessage, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage("{}")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return errorf("%s: argument %q must be %s, got %s", tool, te.Field, kindName(te.Type), te.Value)
		}
		return errorf("%s: arguments are not valid: %w", tool, err)
	}
	return nil
}

func kindName(t reflect.Type) string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return "a different type"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "an integer"
	default:
		return "a " + t.Kind().String()
	}
}

// missing is the error for an absent required argument.
func missing(tool, arg string) error {
	return errorf("%s: missing required argument %q", tool, arg)
}

// isBinary applies the NUL-byte heuristic to the start of a file.
func isBinary(head []byte) bool {
	if len(head) > binarySniffLen {
		head = head[:binarySniffLen]
	}
	return bytes.IndexByte(head, 0) >= 0
}

// pathOrDot returns the optional path argument, defaulting to the
// workspace itself.
func pathOrDot(p *string) string {
	if p == nil || *p == "" {
		return "."
	}
	return *p
}
