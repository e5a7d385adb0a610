package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// fileOperations are the file tools the filesystem tool runs, in the order
// its schema lists them.
var fileOperations = []string{"read_file", "write_file", "edit_file", "list_dir", "glob", "grep"}

// RegisterFilesystemTool registers the filesystem tool on reg: one tool
// whose operation argument names one of the file tools (read_file,
// write_file, edit_file, list_dir, glob, grep) and whose other arguments
// are that tool's, for models that expect a single file tool. Register the
// file tools first ([RegisterFilesystem]); the six stay available.
//
// A call runs the named tool through reg, exactly as a direct call would:
// its arguments are checked against that tool's schema, a write in a
// tainted turn is put to the human approver as that tool's call, and its
// result taints the turn as that tool's would. The containment and the
// protection of joshbot's own files are the file tools' own. Only the
// operations registered on reg now are offered; one unregistered later
// fails as a direct call to it would.
func RegisterFilesystemTool(reg *Registry) error {
	if reg == nil {
		return errors.New("tools: register filesystem tool: nil registry")
	}
	var ops []string
	var schemas []json.RawMessage
	for _, op := range fileOperations {
		if t, ok := reg.Get(op); ok {
			ops = append(ops, op)
			schemas = append(schemas, t.Parameters())
		}
	}
	if len(ops) == 0 {
		return errors.New("tools: register filesystem tool: none of the file tools is registered; call RegisterFilesystem first")
	}
	// The builtin file tools' merged schema is generated at development
	// time (schemas_gen.go), keyed by what it is merged from.
	var params json.RawMessage
	if g, ok := generatedSchema(filesystemKey(ops, schemas)); ok {
		params = json.RawMessage(g)
	} else {
		var err error
		if params, err = filesystemSchema(ops, schemas); err != nil {
			return err
		}
	}
	return reg.Register(&filesystemTool{reg: reg, ops: ops, params: params})
}

// filesystemKey names, for generatedSchema, the filesystem schema merged
// from these operations' schemas: a hash of them, so a file tool whose
// schema differs from the builtin's (or is missing) never gets the
// recorded merge.
func filesystemKey(ops []string, schemas []json.RawMessage) string {
	h := fnv.New64a()
	for i, op := range ops {
		h.Write([]byte(op))
		h.Write([]byte{0})
		h.Write(schemas[i])
		h.Write([]byte{0})
	}
	return fmt.Sprintf("filesystem %016x", h.Sum64())
}

// filesystemSchema merges the operations' schemas into the filesystem
// tool's: the operation argument, and every operation's arguments.
func filesystemSchema(ops []string, schemas []json.RawMessage) (json.RawMessage, error) {
	edit, err := filesystemEdit(ops, schemas)
	if err != nil {
		return nil, err
	}
	return schemaFor[filesystemArgs](edit), nil
}

// filesystemEdit returns the edit that turns filesystemArgs' schema into
// the filesystem tool's, merged from the operations' schemas. It is for
// one use: it changes the merged properties.
func filesystemEdit(ops []string, schemas []json.RawMessage) (func(*jsonschema.Schema), error) {
	props := map[string]*jsonschema.Schema{}
	users := map[string][]string{}
	for i, op := range ops {
		var s jsonschema.Schema
		if err := json.Unmarshal(schemas[i], &s); err != nil {
			return nil, errorf("tools: register filesystem tool: schema of %s: %w", op, err)
		}
		for name, p := range s.Properties {
			users[name] = append(users[name], op)
			if q, seen := props[name]; !seen {
				props[name] = p
			} else if q.Description != p.Description {
				q.Description = ""
			}
		}
	}
	return func(s *jsonschema.Schema) {
		for name, p := range props {
			if name == "operation" {
				continue
			}
			// Whether an argument is required depends on the operation;
			// the operation's own schema checks it when the call runs.
			// An argument the operations describe differently is
			// described by who uses it.
			if p.Description == "" {
				p.Description = "For " + strings.Join(users[name], ", ") + ", as that tool describes it."
			} else {
				p.Description = "For " + strings.Join(users[name], ", ") + ": " + p.Description
			}
			s.Properties[name] = p
		}
		s.Properties["operation"].Enum = nil
		for _, op := range ops {
			s.Properties["operation"].Enum = append(s.Properties["operation"].Enum, op)
		}
	}, nil
}

type filesystemArgs struct {
	Operation string `json:"operation" jsonschema:"Which file tool to run; the other arguments are that tool's."`
}

// filesystemTool is the single file tool. It declares neither [Actor] nor
// [Untrusted]: the file tool it runs is gated and observed by reg.
type filesystemTool struct {
	reg    *Registry
	ops    []string
	params json.RawMessage
}

func (*filesystemTool) Name() string { return "filesystem" }

func (t *filesystemTool) Description() string {
	return "Work with files in the workspace: operation is one of " + strings.Join(t.ops, ", ") +
		", and the other arguments are that operation's, as for the tool of the same name " +
		"(for example {\"operation\":\"read_file\",\"path\":\"notes.md\"})."
}

func (t *filesystemTool) Parameters() json.RawMessage { return t.params }

func (t *filesystemTool) Execute(ctx context.Context, raw json.RawMessage) (string, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return "", errorf("filesystem: arguments are not valid: %w", err)
	}
	var op string
	if err := json.Unmarshal(m["operation"], &op); err != nil || op == "" {
		return "", missing("filesystem", "operation")
	}
	known := false
	for _, o := range t.ops {
		known = known || o == op
	}
	if !known {
		return "", &ArgumentError{Tool: "filesystem", Argument: "operation", Problem: "must be one of " + strings.Join(t.ops, ", ") + ", got " + shorten(op, 60)}
	}
	delete(m, "operation")
	rest, err := json.Marshal(m)
	if err != nil {
		return "", errorf("filesystem: %w", err)
	}
	return t.reg.Execute(ctx, op, rest)
}
