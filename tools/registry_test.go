package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// fakeTool is a Tool whose parts a test can set.
type fakeTool struct {
	name   string
	params string
	// got records the arguments of the last Execute.
	mu  sync.Mutex
	got string
}

func (f *fakeTool) Name() string        { return f.name }
func (f *fakeTool) Description() string { return "fake " + f.name }
func (f *fakeTool) Parameters() json.RawMessage {
	if f.params == "" {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return json.RawMessage(f.params)
}
func (f *fakeTool) Execute(_ context.Context, args json.RawMessage) (string, error) {
	f.mu.Lock()
	f.got = string(args)
	f.mu.Unlock()
	return "ran " + f.name, nil
}

func TestRegistryRefusesDuplicate(t *testing.T) {
	r := NewRegistry()
	if err := r.Register(&fakeTool{name: "a"}); err != nil {
		t.Fatal(err)
	}
	err := r.Register(&fakeTool{name: "a"})
	if !errors.Is(err, ErrDuplicateTool) {
		t.Fatalf("second register: got %v, want ErrDuplicateTool", err)
	}
	if r.Len() != 1 {
		t.Fatalf("Len = %d after refused duplicate, want 1", r.Len())
	}
}

func TestRegistryRefusesInvalid(t *testing.T) {
	cases := map[string]Tool{
		"nil":          nil,
		"empty name":   &fakeTool{name: ""},
		"space":        &fakeTool{name: "read file"},
		"dot":          &fakeTool{name: "fs.read"},
		"too long":     &fakeTool{name: strings.Repeat("x", 65)},
		"array schema": &fakeTool{name: "a", params: `[]`},
		"bad json":     &fakeTool{name: "a", params: `{"type":`},
		"string":       &fakeTool{name: "a", params: `"object"`},
	}
	for label, tool := range cases {
		t.Run(label, func(t *testing.T) {
			r := NewRegistry()
			if err := r.Register(tool); err == nil {
				t.Fatal("Register accepted an invalid tool")
			}
			if r.Len() != 0 {
				t.Fatal("invalid tool was stored")
			}
		})
	}
	if err := NewRegistry().Register(&fakeTool{name: strings.Repeat("x", 64)}); err != nil {
		t.Fatalf("64-character name refused: %v", err)
	}
}

func TestRegistryUnknownToolListsNames(t *testing.T) {
	r := NewRegistry()
	for _, n := range []string{"beta", "alpha"} {
		if err := r.Register(&fakeTool{name: n}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := r.Execute(context.Background(), "gamma", nil)
	if !errors.Is(err, ErrUnknownTool) {
		t.Fatalf("got %v, want ErrUnknownTool", err)
	}
	if !strings.Contains(err.Error(), "alpha, beta") || !strings.Contains(err.Error(), `"gamma"`) {
		t.Fatalf("error should name the missing tool and list the others: %v", err)
	}
}

func TestRegistryArguments(t *testing.T) {
	ft := &fakeTool{name: "t"}
	r := NewRegistry()
	if err := r.Register(ft); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{`[]`, `"x"`, `42`, `{"a":`, `null`, `{} {}`} {
		if _, err := r.Execute(context.Background(), "t", json.RawMessage(bad)); !errors.Is(err, ErrBadArguments) {
			t.Errorf("args %s: got %v, want ErrBadArguments", bad, err)
		}
	}
	for _, empty := range []string{"", "  \n"} {
		out, err := r.Execute(context.Background(), "t", json.RawMessage(empty))
		if err != nil || out != "ran t" {
			t.Fatalf("empty args %q: %q, %v", empty, out, err)
		}
		if ft.got != "{}" {
			t.Fatalf("empty args reached the tool as %q, want {}", ft.got)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Execute(ctx, "t", nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled context: got %v", err)
	}
}

func TestRegistryDefinitionsSortedAndCached(t *testing.T) {
	r := NewRegistry()
	for _, n := range []string{"c", "a", "b"} {
		if err := r.Register(&fakeTool{name: n}); err != nil {
			t.Fatal(err)
		}
	}
	defs := r.Definitions()
	var names []string
	for _, d := range defs {
		if d.Type != "function" {
			t.Fatalf("Type = %q", d.Type)
		}
		names = append(names, d.Function.Name)
	}
	if got := strings.Join(names, ","); got != "a,b,c" {
		t.Fatalf("order %s, want a,b,c", got)
	}
	if again := r.Definitions(); &again[0] != &defs[0] {
		t.Fatal("Definitions was rebuilt without a registration in between")
	}
	if err := r.Register(&fakeTool{name: "0"}); err != nil {
		t.Fatal(err)
	}
	after := r.Definitions()
	if len(after) != 4 || after[0].Function.Name != "0" {
		t.Fatalf("cache not invalidated by Register: %+v", after)
	}
	b, err := json.Marshal(after[1])
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"function","function":{"name":"a","description":"fake a","parameters":{"type":"object","properties":{}}}}`
	if string(b) != want {
		t.Fatalf("wire form\n got %s\nwant %s", b, want)
	}
}

func TestRegistryConcurrent(t *testing.T) {
	r := NewRegistry()
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := fmt.Sprintf("t%d", i)
			if err := r.Register(&fakeTool{name: name}); err != nil {
				t.Error(err)
			}
			for range 50 {
				_ = r.Definitions()
				_ = r.Names()
				if _, err := r.Execute(context.Background(), name, json.RawMessage(`{}`)); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if r.Len() != 16 || len(r.Definitions()) != 16 {
		t.Fatalf("Len %d, Definitions %d, want 16", r.Len(), len(r.Definitions()))
	}
}

func TestRegistryUnregister(t *testing.T) {
	r := NewRegistry()
	for _, n := range []string{"keep", "mcp__s__a", "mcp__s__b"} {
		if err := r.Register(&fakeTool{name: n}); err != nil {
			t.Fatal(err)
		}
	}
	before := r.Definitions()
	if n := r.Unregister("mcp server s was revoked", "mcp__s__a", "mcp__s__b", "never_registered"); n != 2 {
		t.Fatalf("Unregister reported %d removed, want 2", n)
	}
	var names []string
	for _, d := range r.Definitions() {
		names = append(names, d.Function.Name)
	}
	if got := strings.Join(names, ","); got != "keep" {
		t.Fatalf("definitions after Unregister: %s, want keep", got)
	}
	if len(before) != 3 {
		t.Fatalf("the slice handed out before was changed: %d entries", len(before))
	}
	if _, ok := r.Get("mcp__s__a"); ok || r.Len() != 1 {
		t.Fatalf("Get found a removed tool; Len %d", r.Len())
	}

	for _, tt := range []struct {
		name, want string
		is         error
	}{
		{"mcp__s__a", "tool mcp__s__a is no longer available: mcp server s was revoked", ErrRemovedTool},
		{"never_registered", `unknown tool "never_registered"; available tools: keep`, ErrUnknownTool},
	} {
		out, err := r.Execute(context.Background(), tt.name, nil)
		if !errors.Is(err, tt.is) || err.Error() != tt.want || out != "" {
			t.Errorf("Execute(%s) = %q, %v; want error %q", tt.name, out, err, tt.want)
		}
	}
	if out, err := r.Execute(context.Background(), "keep", nil); err != nil || out != "ran keep" {
		t.Fatalf("the remaining tool: %q %v", out, err)
	}

	// Nothing to remove leaves the cache alone; an empty reason still says
	// something.
	defs := r.Definitions()
	if n := r.Unregister("again", "mcp__s__a"); n != 0 {
		t.Fatalf("second Unregister removed %d", n)
	}
	if again := r.Definitions(); &again[0] != &defs[0] {
		t.Fatal("Definitions was rebuilt though nothing was removed")
	}
	r.Unregister("", "keep")
	if _, err := r.Execute(context.Background(), "keep", nil); err == nil || err.Error() != "tool keep is no longer available: it was removed" {
		t.Fatalf("empty reason: %v", err)
	}

	// Registering the name again makes it an ordinary tool.
	if err := r.Register(&fakeTool{name: "mcp__s__a"}); err != nil {
		t.Fatal(err)
	}
	if out, err := r.Execute(context.Background(), "mcp__s__a", nil); err != nil || out != "ran mcp__s__a" {
		t.Fatalf("re-registered: %q %v", out, err)
	}
}

func TestRegistryUnregisterConcurrent(t *testing.T) {
	r := NewRegistry()
	for i := range 32 {
		if err := r.Register(&fakeTool{name: fmt.Sprintf("t%d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Add(2)
		name := fmt.Sprintf("t%d", i)
		go func() {
			defer wg.Done()
			r.Unregister("gone", name)
		}()
		go func() {
			defer wg.Done()
			for range 20 {
				_ = r.Definitions()
				if _, err := r.Execute(context.Background(), name, nil); err != nil && !errors.Is(err, ErrRemovedTool) {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if r.Len() != 0 || len(r.Definitions()) != 0 {
		t.Fatalf("Len %d, Definitions %d after removing all", r.Len(), len(r.Definitions()))
	}
}
