package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// ErrUnknownTool is returned by [Registry.Execute] when no tool has the
// requested name.
var ErrUnknownTool = errors.New("unknown tool")

// ErrBadArguments is returned by [Registry.Execute] when the arguments are
// not a JSON object.
var ErrBadArguments = errors.New("malformed tool arguments")

// ErrRemovedTool is returned by [Registry.Execute] for a tool taken out
// with [Registry.Unregister]; the message carries the reason given there.
var ErrRemovedTool = errors.New("is no longer available")

// ErrDuplicateTool is returned by [Registry.Register] when a tool of the same
// name is already registered. Refusing duplicates is what keeps a tool from
// an outside source from shadowing a built-in.
var ErrDuplicateTool = errors.New("tool already registered")

// validName reports whether name matches ^[a-zA-Z0-9_-]{1,64}$, the rule
// the function-calling APIs enforce. A loop rather than a regexp keeps
// package initialization free of work.
func validName(name string) bool {
	if len(name) == 0 || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// Registry names and runs tools. The zero value is not usable; call
// [NewRegistry]. A Registry is safe for concurrent use.
type Registry struct {
	mu    sync.RWMutex
	tools map[string]Tool
	// removed holds the reason each unregistered tool went away, so a
	// model that calls one from memory learns why.
	removed map[string]string
	// defs caches Definitions; nil after any registration or removal.
	defs []Definition
	// checks build, on a tool's first call, the checker of its arguments
	// against its schema.
	checks map[string]func() *argChecker
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{tools: make(map[string]Tool), checks: make(map[string]func() *argChecker)}
}

// Register adds t. It refuses a nil tool, an invalid name, a parameter
// schema that is not a JSON object, and a name already taken
// ([ErrDuplicateTool]). The schema is read on the tool's first call, once,
// to check the arguments of every call (see [Registry.Execute]).
func (r *Registry) Register(t Tool) error {
	if t == nil {
		return errors.New("tools: register: nil tool")
	}
	name := t.Name()
	if !validName(name) {
		return errorf("tools: register %q: name must be 1 to 64 letters, digits, _ or -", name)
	}
	p := bytes.TrimSpace(t.Parameters())
	if len(p) == 0 || p[0] != '{' || !json.Valid(p) {
		return errorf("tools: register %q: parameters must be a JSON object schema", name)
	}
	// The checker is built on the tool's first call: reading a schema
	// costs more than most turns' tool calls, and a turn calls few of the
	// tools it offers. jsonschema-go resolves it later still, if ever: on
	// the first call whose arguments the checker's fast form does not pass.
	p = bytes.Clone(p)
	check := sync.OnceValue(func() *argChecker { return newArgChecker(p) })
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.tools[name]; ok {
		return errorf("tools: register %q: %w", name, ErrDuplicateTool)
	}
	r.tools[name] = t
	r.checks[name] = check
	delete(r.removed, name)
	r.defs = nil
	return nil
}

// Unregister takes the named tools out, so [Registry.Definitions] stops
// offering them from its next call, and reports how many were registered.
// Names not registered are ignored. A later [Registry.Execute] of a removed
// name fails with [ErrRemovedTool] and reason, which should say why the
// tool went and what brings it back; an empty reason says only that it was
// removed. A call already running is not interrupted. Registering the name
// again makes it an ordinary tool. Unregister exists for tools whose source
// went away while the program runs, such as an MCP server whose approval
// was revoked.
func (r *Registry) Unregister(reason string, names ...string) int {
	if reason == "" {
		reason = "it was removed"
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, name := range names {
		if _, ok := r.tools[name]; !ok {
			continue
		}
		delete(r.tools, name)
		delete(r.checks, name)
		if r.removed == nil {
			r.removed = make(map[string]string)
		}
		r.removed[name] = reason
		n++
	}
	if n > 0 {
		r.defs = nil
	}
	return n
}

// Get returns the tool called name, if any.
func (r *Registry) Get(name string) (Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.tools[name]
	return t, ok
}

// Names returns the registered tool names in sorted order.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := make([]string, 0, len(r.tools))
	for n := range r.tools {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Len reports how many tools are registered.
func (r *Registry) Len() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.tools)
}

// Definitions returns every tool's schema in function-calling form, sorted
// by name so the request bytes are stable across turns (which keeps
// provider-side prompt caches warm). The result is shared: callers must not
// modify it.
func (r *Registry) Definitions() []Definition {
	r.mu.RLock()
	defs := r.defs
	r.mu.RUnlock()
	if defs != nil {
		return defs
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.defs != nil {
		return r.defs
	}
	defs = make([]Definition, 0, len(r.tools))
	for _, t := range r.tools {
		defs = append(defs, Definition{
			Type: "function",
			Function: Function{
				Name:        t.Name(),
				Description: t.Description(),
				Parameters:  t.Parameters(),
			},
		})
	}
	sort.Slice(defs, func(i, j int) bool { return defs[i].Function.Name < defs[j].Function.Name })
	r.defs = defs
	return defs
}

// Execute runs the tool called name with args. An unknown name wraps
// [ErrUnknownTool] and lists the tools that exist; a name taken out with
// [Registry.Unregister] wraps [ErrRemovedTool] with its reason. Arguments
// that are not a JSON object, or that do not satisfy the tool's parameter
// schema, wrap [ErrBadArguments] and the tool does not run; the message
// names the argument at fault and what it must be. A member whose value is
// null counts as absent. Empty arguments are treated as {}, as several
// models send "" for a tool without parameters. A schema that
// jsonschema-go cannot resolve is not checked; that tool checks its
// arguments itself.
//
// When ctx carries a tainted [Taint], a call that acts ([Actor]) is first
// put to the human approver on ctx and refused, wrapping
// [ErrUntrustedAction], when nobody approves it; a call whose result
// carries untrusted text ([Untrusted], or a fence) marks the Taint.
func (r *Registry) Execute(ctx context.Context, name string, args json.RawMessage) (string, error) {
	r.mu.RLock()
	t, ok := r.tools[name]
	check := r.checks[name]
	why, gone := r.removed[name]
	r.mu.RUnlock()
	switch {
	case gone:
		return "", errorf("tool %s %w: %s", name, ErrRemovedTool, why)
	case !ok:
		return "", errorf("%w %q; available tools: %s", ErrUnknownTool, name, strings.Join(r.Names(), ", "))
	}
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 {
		trimmed = []byte("{}")
	}
	if trimmed[0] != '{' || !json.Valid(trimmed) {
		return "", errorf("%w for %s: arguments must be a JSON object, got %s", ErrBadArguments, name, preview(trimmed))
	}
	if err := check().check(name, trimmed); err != nil {
		return "", err
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	ctx, err := gate(ctx, t, name, trimmed)
	if err != nil {
		return "", err
	}
	out, err := t.Execute(ctx, trimmed)
	observe(ctx, t, name, out, err)
	return out, err
}

// preview shortens b for an error message.
func preview(b []byte) string {
	const max = 120
	if len(b) <= max {
		return fmt.Sprintf("%q", b)
	}
	return fmt.Sprintf("%q…", b[:max])
}
