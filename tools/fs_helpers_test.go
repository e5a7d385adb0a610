package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// canaryText is planted outside the workspace; it must never show up in a
// tool's output.
const canaryText = "CANARY-7f3a outside secret"

// fsFixture is a workspace next to an "outside" directory holding a canary.
type fsFixture struct {
	reg     *Registry
	ws      string
	outside string
	canary  string
}

func newFixture(t *testing.T) *fsFixture {
	t.Helper()
	parent, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &fsFixture{
		reg:     NewRegistry(),
		ws:      filepath.Join(parent, "ws"),
		outside: filepath.Join(parent, "outside"),
	}
	f.canary = filepath.Join(f.outside, "canary.txt")
	for _, d := range []string{f.ws, f.outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(f.canary, []byte(canaryText), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := RegisterFilesystem(f.reg, f.ws); err != nil {
		t.Fatal(err)
	}
	return f
}

// write creates a file (and its parents) inside the workspace.
func (f *fsFixture) write(t *testing.T, rel, content string) {
	t.Helper()
	p := filepath.Join(f.ws, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// link creates a symbolic link at rel inside the workspace.
func (f *fsFixture) link(t *testing.T, target, rel string) {
	t.Helper()
	p := filepath.Join(f.ws, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
}

func (f *fsFixture) read(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(f.ws, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// run executes a tool through the registry with args marshalled from v.
func (f *fsFixture) run(t *testing.T, tool string, v any) (string, error) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return f.reg.Execute(context.Background(), tool, b)
}

// mustRun is run for a call expected to succeed. It returns the output
// without its untrusted fence (see unfence); fence_test.go checks fences.
func (f *fsFixture) mustRun(t *testing.T, tool string, v any) string {
	t.Helper()
	out, err := f.run(t, tool, v)
	if err != nil {
		t.Fatalf("%s %v: %v", tool, v, err)
	}
	return unfence(out)
}

type args = map[string]any
