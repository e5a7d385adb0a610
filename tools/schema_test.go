package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// probeArgs exercises every schema feature the builtin tools use.
type probeArgs struct {
	Path  *string  `json:"path" jsonschema:"File to read."`
	Mode  string   `json:"mode,omitempty" schema:"enum=fast|slow"`
	Count *int     `json:"count,omitempty" schema:"minimum=1,maximum=5"`
	Tags  []string `json:"tags,omitempty" schema:"minItems=1,maxItems=2"`
	Quiet bool     `json:"quiet,omitempty"`
}

func TestSchemaForDescribesTheGoType(t *testing.T) {
	var got any
	if err := json.Unmarshal(inferSchema[probeArgs](nil), &got); err != nil {
		t.Fatal(err)
	}
	var want any
	json.Unmarshal([]byte(`{
	  "type": "object",
	  "required": ["path"],
	  "properties": {
	    "path":  {"type": "string", "description": "File to read."},
	    "mode":  {"type": "string", "enum": ["fast", "slow"]},
	    "count": {"type": "integer", "minimum": 1, "maximum": 5},
	    "tags":  {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 2},
	    "quiet": {"type": "boolean"}
	  }
	}`), &want)
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Fatalf("schema\n got %s\nwant %s", g, w)
	}
}

func TestSchemaForRefusesABadTag(t *testing.T) {
	type bad struct {
		N int `json:"n" schema:"minimum=one"`
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "minimum=one") {
			t.Fatalf("recover() = %v, want a panic naming the tag", r)
		}
	}()
	inferSchema[bad](nil)
}

// probeTool counts its runs and has probeArgs' generated schema.
type probeTool struct{ runs int }

func (*probeTool) Name() string                { return "probe" }
func (*probeTool) Description() string         { return "probe" }
func (*probeTool) Parameters() json.RawMessage { return inferSchema[probeArgs](nil) }
func (p *probeTool) Execute(context.Context, json.RawMessage) (string, error) {
	p.runs++
	return "ran", nil
}

// TestArgumentsAreCheckedBeforeTheToolRuns: a call that breaks the schema
// never reaches the tool, and the model is told which argument is wrong
// and what it must be.
func TestArgumentsAreCheckedBeforeTheToolRuns(t *testing.T) {
	for _, tt := range []struct {
		args, arg, want string
		missing         bool
	}{
		{`{}`, "path", `probe: missing required argument "path" (File to read.)`, true},
		{`{"path":null}`, "path", `probe: missing required argument "path" (File to read.)`, true},
		{`{"path":5}`, "path", `probe: argument "path" must be a string, got 5`, false},
		{`{"path":"a","mode":"medium"}`, "mode", `probe: argument "mode" must be one of "fast", "slow", got "medium"`, false},
		{`{"path":"a","count":0}`, "count", `probe: argument "count" must be an integer from 1 to 5, got 0`, false},
		{`{"path":"a","count":2.5}`, "count", `probe: argument "count" must be an integer from 1 to 5, got 2.5`, false},
		{`{"path":"a","tags":["x","y","z"]}`, "tags", `probe: argument "tags" must be an array of strings with 1 to 2 items, got ["x","y","z"]`, false},
		{`{"path":"a","quiet":"yes"}`, "quiet", `probe: argument "quiet" must be a boolean, got "yes"`, false},
	} {
		p := &probeTool{}
		reg := NewRegistry()
		if err := reg.Register(p); err != nil {
			t.Fatal(err)
		}
		_, err := reg.Execute(context.Background(), "probe", json.RawMessage(tt.args))
		var ae *ArgumentError
		if !errors.As(err, &ae) || !errors.Is(err, ErrBadArguments) || ae.Argument != tt.arg || ae.Missing != tt.missing || err.Error() != tt.want {
			t.Errorf("%s: err = %v (%+v)\nwant %s", tt.args, err, ae, tt.want)
		}
		if p.runs != 0 {
			t.Errorf("%s: the tool ran", tt.args)
		}
	}
	// Valid calls run: nulls count as absent, unknown arguments are
	// ignored as the tools ignore them.
	for _, args := range []string{`{"path":"a"}`, `{"path":"a","count":null,"mode":"slow","tags":["x"],"extra":1}`, `{"path":"a","count":5}`} {
		p := &probeTool{}
		reg := NewRegistry()
		reg.Register(p)
		if out, err := reg.Execute(context.Background(), "probe", json.RawMessage(args)); err != nil || out != "ran" || p.runs != 1 {
			t.Errorf("%s: %q, %v, %d runs", args, out, err, p.runs)
		}
	}
}

// TestUnresolvableSchemaIsNotChecked: a schema from an outside source that
// jsonschema-go cannot resolve still registers, and its tool checks its
// own arguments.
func TestUnresolvableSchemaIsNotChecked(t *testing.T) {
	reg := NewRegistry()
	f := &fakeTool{name: "outside", params: `{"type":"object","properties":{"x":{"$ref":"#/$defs/missing"}},"required":["x"]}`}
	if err := reg.Register(f); err != nil {
		t.Fatal(err)
	}
	if out, err := reg.Execute(context.Background(), "outside", json.RawMessage(`{}`)); err != nil || out != "ran outside" {
		t.Fatalf("%q, %v", out, err)
	}
}

// TestBuiltinToolRefusesBadArguments: the builtins' generated schemas are
// enforced through the registry.
func TestBuiltinToolRefusesBadArguments(t *testing.T) {
	reg := builtinRegistry(t)
	_, err := reg.Execute(context.Background(), "read_file", json.RawMessage(`{"path":"a.txt","limit":5000}`))
	if err == nil || err.Error() != `read_file: argument "limit" must be an integer from 1 to 2000, got 5000` {
		t.Fatalf("err = %v", err)
	}
	_, err = reg.Execute(context.Background(), "shell", json.RawMessage(`{"command":"ls","timeout_seconds":601}`))
	if err == nil || err.Error() != `shell: argument "timeout_seconds" must be an integer from 1 to 600, got 601` {
		t.Fatalf("err = %v", err)
	}
}
