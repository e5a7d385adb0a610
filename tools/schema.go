package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// schemaFor returns the parameter schema of a tool whose arguments decode
// into T, inferred by jsonschema-go from the Go type so the schema the
// model sees and the struct the tool decodes cannot drift apart:
//
//   - the JSON name and type of each field come from the struct;
//   - a field is required unless its json tag says omitempty;
//   - a `jsonschema:"..."` tag is the field's description;
//   - a `schema:"..."` tag adds what a Go type cannot say, as a
//     comma-separated list of minimum=N, maximum=N, minItems=N, maxItems=N
//     and enum=a|b|c.
//
// edit, when non-nil, adjusts the result for what is known only at run time
// (the delegate tool's profile names). Pointers and slices describe their
// element (a null is treated as an absent argument by the registry, not
// offered to the model as a type), and additional properties are allowed,
// as a tool ignores arguments it does not know.
//
// Inference ([schemaOf]) panics on a type it cannot describe: a tool's
// argument type is part of the program, and the golden test generates every
// builtin's schema.
// At run time the schema comes from schemas_gen.go, where TestGeneratedSchemas
// records what [schemaOf] infers for each argument type, so the binary
// carries no schema inference (jsonschema.ForType and the tag parser); edit
// is applied to the recorded schema decoded. A type missing from the table
// panics: TestGeneratedSchemas fails first.
func schemaFor[T any](edit func(*jsonschema.Schema)) json.RawMessage {
	return recordedSchema(reflect.TypeFor[T](), edit)
}

// recordedSchema is t's schema from schemas_gen.go with edit applied.
func recordedSchema(t reflect.Type, edit func(*jsonschema.Schema)) json.RawMessage {
	g, ok := generatedSchema(t.String())
	if !ok {
		panic(fmt.Sprintf("tools: schemas_gen.go has no schema of %s (go test -run TestGeneratedSchemas -update)", t))
	}
	if edit == nil {
		return json.RawMessage(g)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(g), &s); err != nil {
		panic(fmt.Sprintf("tools: recorded schema of %s: %v", t, err))
	}
	restoreOrder(&s, []byte(g))
	edit(&s)
	b, err := json.Marshal(&s)
	if err != nil {
		panic(fmt.Sprintf("tools: schema of %s: %v", t, err))
	}
	return b
}

// restoreOrder sets s.PropertyOrder, and that of its properties and
// items, to the order of the properties in raw, s encoded: decoding
// leaves it empty, and encoding would then sort the properties where the
// inferred schema lists the struct's fields first, in field order.
func restoreOrder(s *jsonschema.Schema, raw []byte) {
	if s == nil {
		return
	}
	keys, vals := members(raw)
	for i, k := range keys {
		switch k {
		case "properties":
			names, schemas := members(vals[i])
			s.PropertyOrder = names
			for j, name := range names {
				restoreOrder(s.Properties[name], schemas[j])
			}
		case "items":
			restoreOrder(s.Items, vals[i])
		}
	}
}

// members returns the names and values of a JSON object's members in
// order; nothing for anything else.
func members(raw []byte) (names []string, vals []json.RawMessage) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil
	}
	for dec.More() {
		tok, err := dec.Token()
		name, ok := tok.(string)
		var v json.RawMessage
		if err != nil || !ok || dec.Decode(&v) != nil {
			return nil, nil
		}
		names, vals = append(names, name), append(vals, v)
	}
	return names, vals
}

// schemaOf infers the schema of the struct type t as described at
// [schemaFor]. It is what TestGeneratedSchemas records in schemas_gen.go;
// the binary itself reads the recorded schemas.
func schemaOf(t reflect.Type, edit func(*jsonschema.Schema)) json.RawMessage {
	s, err := jsonschema.ForType(t, nil)
	if err != nil {
		panic(fmt.Sprintf("tools: schema of %s: %v", t, err))
	}
	s.AdditionalProperties = nil
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		p := s.Properties[name]
		if p == nil {
			continue
		}
		dropNull(p)
		if err := applyTag(p, f.Tag.Get("schema")); err != nil {
			panic(fmt.Sprintf("tools: schema of %s, field %s: %v", t, f.Name, err))
		}
	}
	if len(s.Required) == 0 {
		s.Required = nil
	}
	if edit != nil {
		edit(s)
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("tools: schema of %s: %v", t, err))
	}
	return b
}

// lazySchema is the schema of an argument type T, named by of, a nil *T;
// it is generated with [schemaFor] on first use and the same bytes after.
// A package-level lazySchema costs nothing at start-up, and the
// registry's cached definitions stay valid. It is not generic so that the
// binary holds its code once, not once per argument type.
type lazySchema struct {
	of   any
	once sync.Once
	b    json.RawMessage
	// edit is schemaFor's edit; nil means none.
	edit func(*jsonschema.Schema)
}

// typ is T.
func (l *lazySchema) typ() reflect.Type { return reflect.TypeOf(l.of).Elem() }

// get returns the schema: the bytes generated into schemas_gen.go
// (generating them at run time would cost a turn more than most of its
// work), which have the edit applied already. TestGeneratedSchemas keeps
// them what schemaOf infers now.
func (l *lazySchema) get() json.RawMessage {
	l.once.Do(func() { l.b = recordedSchema(l.typ(), nil) })
	return l.b
}

// key names T for generatedSchema: its package-qualified type name.
func (l *lazySchema) key() string { return l.typ().String() }

// fresh generates the schema with schemaFor.
func (l *lazySchema) fresh() json.RawMessage { return schemaOf(l.typ(), l.edit) }

// dropNull turns jsonschema-go's ["null", T] (for pointers and slices)
// into T, here and in array items.
func dropNull(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && s.Types[0] == "null" {
		s.Type, s.Types = s.Types[1], nil
	}
	dropNull(s.Items)
}

// applyTag sets the constraints of a `schema:"..."` tag on p.
func applyTag(p *jsonschema.Schema, tag string) error {
	if tag == "" {
		return nil
	}
	for kv := range strings.SplitSeq(tag, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return errorf("schema tag %q: want key=value", kv)
		}
		if k == "enum" {
			for e := range strings.SplitSeq(v, "|") {
				p.Enum = append(p.Enum, e)
			}
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return errorf("schema tag %q: %v", kv, err)
		}
		switch k {
		case "minimum":
			p.Minimum = jsonschema.Ptr(float64(n))
		case "maximum":
			p.Maximum = jsonschema.Ptr(float64(n))
		case "minItems":
			p.MinItems = jsonschema.Ptr(n)
		case "maxItems":
			p.MaxItems = jsonschema.Ptr(n)
		default:
			return errorf("schema tag %q: unknown key %s", kv, k)
		}
	}
	return nil
}

// argChecker validates a tool's arguments against its parameter schema.
type argChecker struct {
	// fast is the schema in the form [fastSchema.valid] reads, or nil when
	// it uses anything outside that form.
	fast *fastSchema
	// params is the schema; resolved, once, with jsonschema-go into
	// resolved by [argChecker.full].
	params   json.RawMessage
	once     sync.Once
	resolved *resolvedSchema
}

// full is the schema resolved with jsonschema-go, on the first arguments
// the fast form does not pass; nil when jsonschema-go cannot resolve it.
func (c *argChecker) full() *resolvedSchema {
	c.once.Do(func() { c.resolved = resolveSchema(c.params) })
	return c.resolved
}

// resolvedSchema is a parameter schema as jsonschema-go reads it.
type resolvedSchema struct {
	schema   *jsonschema.Schema
	resolved *jsonschema.Resolved
}

// newArgChecker returns the checker of a tool's parameter schema.
func newArgChecker(params json.RawMessage) *argChecker {
	return &argChecker{
		fast:   compileFast(params),
		params: params,
	}
}

// resolveSchema resolves params with jsonschema-go, or returns nil when it
// cannot (a schema from an outside source using what it does not support);
// such a tool checks its arguments itself.
func resolveSchema(params json.RawMessage) *resolvedSchema {
	var s jsonschema.Schema
	if err := json.Unmarshal(params, &s); err != nil {
		return nil
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return nil
	}
	return &resolvedSchema{schema: &s, resolved: rs}
}

// ArgumentError is a tool call whose arguments do not satisfy the tool's
// parameter schema; [Registry.Execute] returns it before the tool runs.
// errors.Is(err, [ErrBadArguments]) holds for it.
type ArgumentError struct {
	// Tool is the tool called.
	Tool string
	// Argument is the argument at fault; empty when the fault is not one
	// argument's.
	Argument string
	// Missing is true when Argument is required and absent.
	Missing bool
	// Problem says what is wrong, for example `must be an integer from 1
	// to 2000, got 5000`; when Missing, it is the argument's description
	// from the schema, or empty.
	Problem string
}

// Error names the tool, the argument and the problem, for the model to
// correct its call: `read_file: argument "limit" must be an integer from 1
// to 2000, got 5000`.
func (e *ArgumentError) Error() string {
	if e.Missing {
		if e.Problem == "" {
			return fmt.Sprintf("%s: missing required argument %q", e.Tool, e.Argument)
		}
		return fmt.Sprintf("%s: missing required argument %q (%s)", e.Tool, e.Argument, e.Problem)
	}
	if e.Argument == "" {
		return e.Tool + ": arguments " + e.Problem
	}
	return fmt.Sprintf("%s: argument %q %s", e.Tool, e.Argument, e.Problem)
}

// Unwrap returns [ErrBadArguments].
func (e *ArgumentError) Unwrap() error { return ErrBadArguments }

// check validates args (a JSON object) for tool. A member whose value is
// null counts as absent, as the tools treat it. The error is an
// [*ArgumentError] naming the argument at fault and what it must be.
// Arguments the fast form passes are valid; any others, and every
// argument of a schema without one, are judged by jsonschema-go, which
// words the error.
func (c *argChecker) check(tool string, args json.RawMessage) error {
	obj, decodeErr := argObject(args)
	if decodeErr == nil && c.fast != nil && c.fast.valid(obj) {
		return nil
	}
	// A schema jsonschema-go cannot resolve checks nothing, not even that
	// the arguments decode: the tool checks its own.
	full := c.full()
	if full == nil {
		return nil
	}
	if decodeErr != nil {
		return &ArgumentError{Tool: tool, Problem: "are not valid JSON: " + decodeErr.Error()}
	}
	err := full.resolved.Validate(obj)
	if err == nil {
		return nil
	}
	for _, req := range full.schema.Required {
		if _, ok := obj[req]; !ok {
			e := &ArgumentError{Tool: tool, Argument: req, Missing: true}
			if p := full.schema.Properties[req]; p != nil {
				e.Problem = p.Description
			}
			return e
		}
	}
	names := make([]string, 0, len(obj))
	for k := range obj {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		p := full.schema.Properties[k]
		if p == nil {
			continue
		}
		rp, rerr := p.CloneSchemas().Resolve(nil)
		if rerr != nil {
			continue
		}
		if rp.Validate(obj[k]) != nil {
			got, _ := json.Marshal(obj[k])
			return &ArgumentError{Tool: tool, Argument: k, Problem: "must be " + expect(p) + ", got " + shorten(string(got), 120)}
		}
	}
	return &ArgumentError{Tool: tool, Problem: "do not match the tool's schema: " + innermost(err)}
}

// argObject decodes a call's arguments, dropping the members whose value
// is null: the tools treat them as absent.
func argObject(args json.RawMessage) (map[string]any, error) {
	var obj map[string]any
	if err := json.Unmarshal(args, &obj); err != nil {
		return nil, err
	}
	for k, v := range obj {
		if v == nil {
			delete(obj, k)
		}
	}
	return obj, nil
}

// innermost is the last part of a jsonschema-go error, which wraps its
// finding in the path of schemas it was validating.
func innermost(err error) string {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return err.Error()
		}
		err = u
	}
}

// expect says in words what a value of schema p must be.
func expect(p *jsonschema.Schema) string {
	var b strings.Builder
	if len(p.Enum) > 0 {
		quoted := make([]string, len(p.Enum))
		for i, e := range p.Enum {
			q, _ := json.Marshal(e)
			quoted[i] = string(q)
		}
		return "one of " + strings.Join(quoted, ", ")
	}
	b.WriteString(typeName(p))
	if p.Items != nil && bareType(p.Items) != "" {
		b.WriteString(" of " + bareType(p.Items) + "s")
	}
	switch {
	case p.Minimum != nil && p.Maximum != nil:
		fmt.Fprintf(&b, " from %g to %g", *p.Minimum, *p.Maximum)
	case p.Minimum != nil:
		fmt.Fprintf(&b, " of at least %g", *p.Minimum)
	case p.Maximum != nil:
		fmt.Fprintf(&b, " of at most %g", *p.Maximum)
	}
	switch {
	case p.MinItems != nil && p.MaxItems != nil:
		fmt.Fprintf(&b, " with %d to %d items", *p.MinItems, *p.MaxItems)
	case p.MinItems != nil:
		fmt.Fprintf(&b, " with at least %d items", *p.MinItems)
	case p.MaxItems != nil:
		fmt.Fprintf(&b, " with at most %d items", *p.MaxItems)
	}
	return b.String()
}

// bareType is a schema's type: "string", "integer or null", or "".
func bareType(p *jsonschema.Schema) string {
	if p.Type != "" {
		return p.Type
	}
	return strings.Join(p.Types, " or ")
}

// typeName names a schema's type with its article: "a string".
func typeName(p *jsonschema.Schema) string {
	switch t := bareType(p); {
	case t == "":
		return "a value"
	case t[0] == 'i' || t[0] == 'a' || t[0] == 'o':
		return "an " + t
	default:
		return "a " + t
	}
}
