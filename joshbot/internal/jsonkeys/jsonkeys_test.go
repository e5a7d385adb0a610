package jsonkeys

import (
	"reflect"
	"strings"
	"testing"
)

type inner struct {
	Temperature float64 `json:"temperature"`
	Streaming   *bool   `json:"streaming,omitempty"`
}

type doc struct {
	Name   string           `json:"name"`
	Inner  inner            `json:"inner"`
	ByName map[string]inner `json:"by_name"`
}

func TestSetPath(t *testing.T) {
	var d doc
	v := reflect.ValueOf(&d).Elem()
	for _, tt := range []struct{ path, text string }{
		{"name", "x"}, {"inner.temperature", "0.5"}, {"inner.streaming", "true"}, {"by_name.a.temperature", "1"},
	} {
		if err := SetPath(v, strings.Split(tt.path, "."), tt.text); err != nil {
			t.Fatalf("%s: %v", tt.path, err)
		}
	}
	if d.Name != "x" || d.Inner.Temperature != 0.5 || d.Inner.Streaming == nil || !*d.Inner.Streaming || d.ByName["a"].Temperature != 1 {
		t.Fatalf("set %+v", d)
	}
	for _, tt := range []struct{ path, text, want string }{
		{"nope", "1", `no config key "nope"`},
		{"inner.temperature", "warm", "inner.temperature must be a number"},
		{"inner.streaming", "maybe", "must be true or false"},
	} {
		if err := SetPath(v, strings.Split(tt.path, "."), tt.text); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s=%s: %v, want %q", tt.path, tt.text, err, tt.want)
		}
	}
}

func TestUnknown(t *testing.T) {
	d := map[string]any{"name": "x", "inner": map[string]any{"temprature": 1.0}}
	path, suggest, ok := Unknown(d, reflect.TypeFor[doc]())
	if !ok || path != "inner.temprature" || suggest != "temperature" {
		t.Fatalf("Unknown = %q, %q, %v", path, suggest, ok)
	}
	if _, _, ok := Unknown(map[string]any{"name": "x"}, reflect.TypeFor[doc]()); ok {
		t.Fatal("a known document has an unknown key")
	}
}
