package tools

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestFilesystemSchemas(t *testing.T) {
	f := newFixture(t)
	want := []string{"edit_file", "glob", "grep", "list_dir", "read_file", "write_file"}
	if got := f.reg.Names(); !slices.Equal(got, want) {
		t.Fatalf("registered %v, want %v", got, want)
	}
	for _, d := range f.reg.Definitions() {
		var s struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		if err := json.Unmarshal(d.Function.Parameters, &s); err != nil {
			t.Fatalf("%s: schema: %v", d.Function.Name, err)
		}
		if s.Type != "object" {
			t.Errorf("%s: schema needs type object", d.Function.Name)
		}
		for _, r := range s.Required {
			if _, ok := s.Properties[r]; !ok {
				t.Errorf("%s: required %q is not a property", d.Function.Name, r)
			}
		}
		for name, raw := range s.Properties {
			var p struct {
				Type        string `json:"type"`
				Description string `json:"description"`
			}
			if err := json.Unmarshal(raw, &p); err != nil || p.Type == "" || p.Description == "" {
				t.Errorf("%s.%s: property needs a type and a description (%v)", d.Function.Name, name, err)
			}
		}
		if d.Function.Description == "" {
			t.Errorf("%s: no description", d.Function.Name)
		}
	}
}

func TestFilesystemArgumentErrors(t *testing.T) {
	f := newFixture(t)
	f.write(t, "a.txt", "x\n")
	cases := []struct {
		tool string
		args string
		want string
	}{
		{"read_file", `{}`, `missing required argument "path"`},
		{"write_file", `{"path":"a.txt"}`, `missing required argument "content"`},
		{"write_file", `{"content":"x"}`, `missing required argument "path"`},
		{"edit_file", `{"path":"a.txt","new_text":"y"}`, `missing required argument "old_text"`},
		{"edit_file", `{"path":"a.txt","old_text":"x"}`, `missing required argument "new_text"`},
		{"glob", `{"path":"."}`, `missing required argument "pattern"`},
		{"grep", `{}`, `missing required argument "pattern"`},
		{"read_file", `{"path":"a.txt","offset":"3"}`, `argument "offset" must be an integer`},
		{"read_file", `{"path":7}`, `argument "path" must be a string`},
		{"grep", `{"pattern":"x","ignore_case":"yes"}`, `argument "ignore_case" must be a boolean`},
		{"read_file", `{"path":""}`, `path is empty`},
	}
	for _, c := range cases {
		_, err := f.reg.Execute(t.Context(), c.tool, json.RawMessage(c.args))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: got %v, want error containing %q", c.tool, c.args, err, c.want)
		}
	}
	// Unknown fields are ignored.
	out := f.mustRun(t, "read_file", args{"path": "a.txt", "encoding": "utf-8"})
	if !strings.Contains(out, "x") {
		t.Fatalf("unknown field broke the call: %q", out)
	}
}
