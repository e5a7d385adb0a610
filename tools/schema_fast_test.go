package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"slices"
	"strconv"
	"testing"
)

// builtinSchemas is every parameter schema of the builtin tools: each one
// recorded in schemas_gen.go, and each one a builtin registry offers
// (which adds those edited at run time, such as delegate's profiles).
func builtinSchemas(t *testing.T) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "schemas_gen.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		c, ok := n.(*ast.CaseClause)
		if !ok {
			return true
		}
		for _, e := range c.List {
			key, err := strconv.Unquote(e.(*ast.BasicLit).Value)
			if err != nil {
				t.Fatal(err)
			}
			s, ok := generatedSchema(key)
			if !ok {
				t.Fatalf("generatedSchema(%q) not found", key)
			}
			out[key] = s
		}
		return false
	})
	for _, d := range builtinRegistry(t).Definitions() {
		out["tool "+d.Function.Name] = string(d.Function.Parameters)
	}
	if len(out) < 20 {
		t.Fatalf("found only %d builtin schemas", len(out))
	}
	return out
}

// candidates are argument values to try for the property p (a decoded
// schema): one of each JSON type, and values on and just past each bound
// and beside each enum member.
func candidates(p map[string]any) []any {
	vals := []any{"x", "", 0.0, 5.0, 5.5, -1.0, 1e20, true, false, nil,
		[]any{}, []any{"x"}, []any{1.0}, []any{2.5}, []any{nil}, []any{true}, map[string]any{}, map[string]any{"a": 1.0}}
	if e, ok := p["enum"].([]any); ok {
		for _, m := range e {
			vals = append(vals, m)
			if s, ok := m.(string); ok {
				vals = append(vals, s+"z", []any{s})
			}
		}
	}
	for _, k := range []string{"minimum", "maximum"} {
		if b, ok := p[k].(float64); ok {
			vals = append(vals, b, b-1, b+1, b-0.5, b+0.5)
		}
	}
	if p["type"] == "array" {
		item, _ := p["items"].(map[string]any)
		good := validValue(item)
		lo, _ := p["minItems"].(float64)
		hi, ok := p["maxItems"].(float64)
		if !ok {
			hi = lo + 2
		}
		for _, n := range []int{int(lo) - 1, int(lo), int(hi), int(hi) + 1} {
			if n >= 0 {
				vals = append(vals, slices.Repeat([]any{good}, n))
			}
		}
		for _, bad := range candidates(item) {
			vals = append(vals, []any{good, bad})
		}
	}
	return vals
}

// validValue is a value the property p (a decoded schema) admits; nil
// when p is nil (any value will do).
func validValue(p map[string]any) any {
	if e, ok := p["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	n := 3.0
	if lo, ok := p["minimum"].(float64); ok {
		n = lo
	} else if hi, ok := p["maximum"].(float64); ok {
		n = hi
	}
	switch p["type"] {
	case "string":
		return "a"
	case "integer", "number":
		return n
	case "boolean":
		return true
	case "array":
		item, _ := p["items"].(map[string]any)
		lo, _ := p["minItems"].(float64)
		return slices.Repeat([]any{validValue(item)}, max(1, int(lo)))
	}
	return nil
}

// argCases are argument objects for the schema s (decoded): the required
// members alone, every member, then each member replaced by each of its
// candidates, each required member missing or null, and extra members.
func argCases(s map[string]any) []map[string]any {
	props, _ := s["properties"].(map[string]any)
	var required []string
	for _, r := range s["required"].([]any) {
		required = append(required, r.(string))
	}
	base, full := map[string]any{}, map[string]any{}
	for name, p := range props {
		full[name] = validValue(p.(map[string]any))
	}
	for _, r := range required {
		base[r] = full[r]
	}
	cases := []map[string]any{base, full}
	with := func(m map[string]any, k string, v any) map[string]any {
		c := maps.Clone(m)
		c[k] = v
		return c
	}
	for _, name := range slices.Sorted(maps.Keys(props)) {
		for _, v := range candidates(props[name].(map[string]any)) {
			cases = append(cases, with(full, name, v), with(base, name, v))
		}
	}
	for _, r := range required {
		c := maps.Clone(full)
		delete(c, r)
		cases = append(cases, c, with(full, r, nil))
	}
	for _, v := range candidates(nil) {
		cases = append(cases, with(full, "zz_extra", v))
	}
	return cases
}

// TestFastArgCheckAgrees: on every builtin schema, the fast form exists
// and decides every generated argument object as jsonschema-go does, so
// it never passes what jsonschema-go refuses and it does decide the valid
// calls; and a call it passes never resolves the schema.
func TestFastArgCheckAgrees(t *testing.T) {
	for name, schema := range builtinSchemas(t) {
		fast := compileFast([]byte(schema))
		if fast == nil {
			t.Errorf("%s: no fast form of %s", name, schema)
			continue
		}
		full := resolveSchema(json.RawMessage(schema))
		var decoded map[string]any
		if err := json.Unmarshal([]byte(schema), &decoded); err != nil {
			t.Fatal(err)
		}
		if decoded["required"] == nil {
			decoded["required"] = []any{}
		}
		valid, invalid := 0, 0
		for _, c := range argCases(decoded) {
			args, err := json.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			obj, err := argObject(args)
			if err != nil {
				t.Fatal(err)
			}
			want := full.resolved.Validate(obj) == nil
			if got := fast.valid(obj); got != want {
				t.Errorf("%s: %s: fast says %v, jsonschema-go %v", name, args, got, want)
				continue
			}
			if !want {
				invalid++
				continue
			}
			valid++
			ac := newArgChecker(json.RawMessage(schema))
			if err := ac.check(name, args); err != nil {
				t.Errorf("%s: %s: %v", name, args, err)
			}
			// The once runs this only if check did not resolve the schema.
			resolvedLater := false
			ac.once.Do(func() { resolvedLater = true })
			if !resolvedLater {
				t.Errorf("%s: %s: valid arguments resolved the schema", name, args)
			}
		}
		if valid < 2 || invalid < 5 {
			t.Errorf("%s: %d valid and %d invalid cases: the generator is not trying", name, valid, invalid)
		}
	}
}

// TestFastArgCheckTable: hand-picked calls of builtin tools, decided by
// both the fast form and jsonschema-go as written here.
func TestFastArgCheckTable(t *testing.T) {
	schemas := builtinSchemas(t)
	for _, tt := range []struct {
		tool, args string
		valid      bool
	}{
		{"read_file", `{"path":"a"}`, true},
		{"read_file", `{"path":"a","limit":5.0}`, true},
		{"read_file", `{"path":"a","limit":5.5}`, false},
		{"read_file", `{"path":"a","limit":2000,"offset":1}`, true},
		{"read_file", `{"path":"a","limit":2001}`, false},
		{"read_file", `{"path":"a","offset":0}`, false},
		{"read_file", `{"path":"a","limit":"5"}`, false},
		{"read_file", `{"path":"a","limit":null}`, true},
		{"read_file", `{"path":null}`, false},
		{"read_file", `{"limit":5}`, false},
		{"read_file", `{"path":5}`, false},
		{"read_file", `{"path":"a","extra":{"deep":[1,null]}}`, true},
		{"shell", `{}`, true},
		{"shell", `{"command":"ls","timeout_seconds":600.0,"async":false}`, true},
		{"shell", `{"command":"ls","timeout_seconds":0}`, false},
		{"shell", `{"command":"ls","async":"true"}`, false},
		{"shell", `{"command":["ls"]}`, false},
		{"cron", `{"action":"add","in":"10m","message":"x"}`, true},
		{"cron", `{"action":"ADD"}`, false},
		{"cron", `{"action":1}`, false},
		{"parallel", `{"tasks":["a"]}`, true},
		{"parallel", `{"tasks":[]}`, false},
		{"parallel", `{"tasks":["1","2","3","4","5","6","7","8"]}`, true},
		{"parallel", `{"tasks":["1","2","3","4","5","6","7","8","9"]}`, false},
		{"parallel", `{"tasks":["a",1]}`, false},
		{"parallel", `{"tasks":["a",null]}`, false},
		{"parallel", `{"tasks":"a"}`, false},
		{"edit_file", `{"path":"a","old_text":"x","new_text":"","replace_all":true}`, true},
		{"edit_file", `{"path":"a","old_text":"x","new_text":"","replace_all":1}`, false},
		{"delegate", `{"profile":"coder","task":"t"}`, true},
		{"delegate", `{"profile":"poet","task":"t"}`, false},
		{"filesystem", `{"operation":"grep","pattern":"x","ignore_case":true}`, true},
		{"filesystem", `{"operation":"chmod"}`, false},
	} {
		schema, ok := schemas["tool "+tt.tool]
		if !ok {
			t.Fatalf("no tool %s", tt.tool)
		}
		obj, err := argObject(json.RawMessage(tt.args))
		if err != nil {
			t.Fatal(err)
		}
		if got := resolveSchema(json.RawMessage(schema)).resolved.Validate(obj) == nil; got != tt.valid {
			t.Errorf("%s %s: jsonschema-go says valid = %v, want %v", tt.tool, tt.args, got, tt.valid)
		}
		if got := compileFast([]byte(schema)).valid(obj); got != tt.valid {
			t.Errorf("%s %s: fast says valid = %v, want %v", tt.tool, tt.args, got, tt.valid)
		}
	}
}

// TestFastSchemaOutsideSubset: a schema using anything the fast form does
// not read has none, and jsonschema-go still checks its calls.
func TestFastSchemaOutsideSubset(t *testing.T) {
	for _, s := range []string{
		`{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`,
		`{"type":"object","properties":{"a":{"type":["string","null"]}}}`,
		`{"type":"object","properties":{"a":{"type":"string","pattern":"^x"}}}`,
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/b"}},"$defs":{"b":{"type":"string"}}}`,
		`{"type":"object","properties":{"a":{"oneOf":[{"type":"string"},{"type":"integer"}]}}}`,
		`{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"string"}}}}}`,
		`{"type":"object","properties":{"a":{"type":"string","format":"uri"}}}`,
		`{"type":"object","properties":{"a":{"type":"string","x-unknown":1}}}`,
		`{"type":"object","properties":{"a":{"type":"string"}},"$schema":"https://json-schema.org/draft/2020-12/schema"}`,
		`{"type":"object","Properties":{"a":{"type":"string"}}}`,
		`{"type":"object","properties":{"a":{"description":"no type"}}}`,
		`{"type":"object","properties":{"a":true}}`,
		`{"type":"object","properties":{"a":{"type":"string","enum":[{"k":1}]}}}`,
		`{"type":"object","properties":{"a":{"type":"string","enum":[null]}}}`,
		`{"type":"object","properties":{"a":{"type":"array","items":[{"type":"string"}]}}}`,
		`{"type":"object","properties":{"a":{"type":"array","minItems":1.5}}}`,
		`{"type":"object","properties":{"a":{"type":"array","maxItems":-1}}}`,
		`{"type":"object","properties":{"a":{"type":"integer","minimum":"1"}}}`,
		`{"type":"object","properties":{"a":{"type":"integer","exclusiveMinimum":1}}}`,
		`{"type":"object","required":"a"}`,
		`{"properties":{"a":{"type":"string"}}}`,
		`{"type":"array"}`,
		// A member named twice, at any depth: jsonschema-go merges two
		// "properties", so a map's reading would miss the first.
		`{"type":"object","properties":{"a":{"type":"string"}},"properties":{"b":{"type":"string"}}}`,
		`{"type":"object","properties":{"a":{"type":"string"},"a":{"type":"integer"}}}`,
		`{"type":"object","properties":{"a":{"type":"integer","minimum":1,"minimum":5}}}`,
	} {
		if compileFast([]byte(s)) != nil {
			t.Errorf("%s has a fast form", s)
		}
	}
	for _, tt := range []struct{ schema, args, arg string }{
		{`{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`, `{"a":"x","b":1}`, ""},
		{`{"type":"object","properties":{"a":{"type":["string","null"]}}}`, `{"a":5}`, "a"},
		{`{"type":"object","properties":{"a":{"type":"string","pattern":"^x"}}}`, `{"a":"y"}`, "a"},
		{`{"type":"object","properties":{"a":{"type":"string"}},"properties":{"b":{"type":"integer"}}}`, `{"a":1,"b":2}`, "a"},
	} {
		reg := NewRegistry()
		if err := reg.Register(&fakeTool{name: "outside", params: tt.schema}); err != nil {
			t.Fatal(err)
		}
		_, err := reg.Execute(context.Background(), "outside", json.RawMessage(tt.args))
		if ae := (*ArgumentError)(nil); !errors.As(err, &ae) || ae.Argument != tt.arg {
			t.Errorf("%s with %s: err = %v, want an ArgumentError on %q", tt.schema, tt.args, err, tt.arg)
		}
	}
}

// FuzzFastArgCheck: for any schema with a fast form that jsonschema-go
// resolves, arguments the fast form passes satisfy jsonschema-go.
func FuzzFastArgCheck(f *testing.F) {
	schemas := []string{
		`{"type":"object","properties":{"n":{"type":"number","minimum":-1.5,"maximum":2.25},"i":{"type":"integer","minimum":0,"maximum":10},"e":{"type":"integer","enum":[1,2.0,"3",true]},"s":{"type":"string","enum":["a","b"]},"a":{"type":"array","items":{"type":"integer","minimum":0,"maximum":9,"enum":[0,1,5]},"minItems":2,"maxItems":3},"b":{"type":"array","items":{"type":"array","items":{"type":"boolean"}}}},"required":["n","s"]}`,
	}
	for _, k := range []string{"tools.readFileArgs", "tools.shellArgs", "tools.parallelArgs", "tools.cronArgs", "tools.profileArgs", "filesystem 163a45ef85e35aee"} {
		s, ok := generatedSchema(k)
		if !ok {
			f.Fatalf("no schema %s", k)
		}
		schemas = append(schemas, s)
	}
	args := []string{
		`{}`, `{"n":1,"s":"a"}`, `{"n":2.25,"s":"b","i":10.0,"e":2,"a":[0,5],"b":[[true],[]]}`,
		`{"n":2.26,"s":"a"}`, `{"n":1,"s":"a","e":"3","a":[1,1,1,1]}`, `{"n":null,"s":"a"}`,
		`{"path":"a","limit":2000,"offset":1.0}`, `{"command":"ls","timeout_seconds":600,"async":true}`,
		`{"tasks":["a","b"]}`, `{"action":"add","in":"1m"}`, `{"operation":"edit","max_iterations":200,"tools":["x"]}`,
		`{"operation":"read_file","path":"a","limit":5.5}`,
	}
	for _, s := range schemas {
		for _, a := range args {
			f.Add(s, a)
		}
	}
	f.Fuzz(func(t *testing.T, schema, args string) {
		p := bytes.TrimSpace([]byte(schema))
		if len(p) == 0 || p[0] != '{' || !json.Valid(p) {
			return // Register refuses it
		}
		fast := compileFast(p)
		if fast == nil {
			return
		}
		full := resolveSchema(p)
		if full == nil {
			return // not checked at all: every call passes
		}
		a := bytes.TrimSpace([]byte(args))
		if len(a) == 0 || a[0] != '{' || !json.Valid(a) {
			return // Execute refuses it
		}
		obj, err := argObject(a)
		if err != nil {
			return
		}
		if fast.valid(obj) {
			if err := full.resolved.Validate(obj); err != nil {
				t.Fatalf("fast passes %s against %s; jsonschema-go: %v", a, p, err)
			}
		}
	})
}
