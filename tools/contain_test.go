package tools

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestResolve(t *testing.T) {
	f := newFixture(t)
	f.write(t, "dir/file.txt", "x")
	f.link(t, "dir", "inlink")
	f.link(t, f.outside, "outlink")
	f.link(t, filepath.Join(f.outside, "nowhere"), "dangling")

	ok := map[string]string{
		".":                       f.ws,
		"dir/file.txt":            filepath.Join(f.ws, "dir/file.txt"),
		"dir/../dir/file.txt":     filepath.Join(f.ws, "dir/file.txt"),
		"./new/deeper/x.txt":      filepath.Join(f.ws, "new/deeper/x.txt"),
		"inlink/file.txt":         filepath.Join(f.ws, "dir/file.txt"),
		"inlink/new.txt":          filepath.Join(f.ws, "dir/new.txt"),
		f.ws:                      f.ws,
		f.ws + "/dir/file.txt":    filepath.Join(f.ws, "dir/file.txt"),
		"outlink/..":              f.ws, // lexical: ".." cancels the link, not its target
		"dir//file.txt":           filepath.Join(f.ws, "dir/file.txt"),
		"dir/file.txt/../new.txt": filepath.Join(f.ws, "dir/new.txt"),
	}
	for p, want := range ok {
		got, err := resolve(f.ws, p)
		if err != nil || got != want {
			t.Errorf("resolve(%q) = %q, %v; want %q", p, got, err, want)
		}
	}

	bad := []string{
		"", "..", "../x", "../ws2/x", "a/../../x", "/etc/passwd", f.outside, f.canary,
		"outlink", "outlink/canary.txt", "outlink/new.txt", "outlink/new/deeper.txt",
		"dangling", "dangling/x", "dir/file.txt/x", "bad\x00name",
	}
	for _, p := range bad {
		if got, err := resolve(f.ws, p); err == nil {
			t.Errorf("resolve(%q) = %q, want an error", p, got)
		}
	}
	_, err := resolve(f.ws, "../x")
	if err == nil || !strings.Contains(err.Error(), `path "../x" is outside the workspace`) {
		t.Errorf("error for ../x should say it is outside the workspace: %v", err)
	}
}

func TestWorkspaceValidation(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, ws := range []string{"", filepath.Join(dir, "missing"), file} {
		if err := RegisterFilesystem(NewRegistry(), ws); err == nil {
			t.Errorf("RegisterFilesystem(%q) succeeded", ws)
		}
	}
	if err := RegisterFilesystem(nil, dir); err == nil {
		t.Error("nil registry accepted")
	}
	reg := NewRegistry()
	if err := reg.Register(&fakeTool{name: "grep"}); err != nil {
		t.Fatal(err)
	}
	if err := RegisterFilesystem(reg, dir); err == nil || reg.Len() != 1 {
		t.Errorf("taken name: err %v, %d tools registered; want an error and nothing added", err, reg.Len())
	}
}

// TestWorkspaceAlias checks that absolute paths spelled through a symlinked
// workspace path are accepted, since that is the spelling the model is given.
func TestWorkspaceAlias(t *testing.T) {
	f := newFixture(t)
	f.write(t, "a.txt", "alias ok")
	alias := filepath.Join(filepath.Dir(f.ws), "wsalias")
	if err := os.Symlink(f.ws, alias); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
	reg := NewRegistry()
	if err := RegisterFilesystem(reg, alias); err != nil {
		t.Fatal(err)
	}
	fx := &fsFixture{reg: reg}
	out := fx.mustRun(t, "read_file", args{"path": filepath.Join(alias, "a.txt")})
	if !strings.Contains(out, "alias ok") {
		t.Fatalf("read through alias: %q", out)
	}
	if _, err := fx.run(t, "read_file", args{"path": filepath.Join(alias, "..", "outside", "canary.txt")}); err == nil {
		t.Fatal("escape through the alias spelling succeeded")
	}
}

// TestEscapes tries every tool against every way out of the workspace and
// checks both the error and that nothing outside was read or changed.
func TestEscapes(t *testing.T) {
	f := newFixture(t)
	f.write(t, "a/keep.txt", "inside")
	f.link(t, "/etc", "etclink")
	f.link(t, f.outside, "outlink")
	f.link(t, f.canary, "leak.txt")
	f.link(t, f.outside, "a/b")
	f.link(t, filepath.Join(f.outside, "ghost.txt"), "dangling.txt")
	rel := func(p string) string { r, _ := filepath.Rel(f.ws, p); return r }

	files := []string{
		"../x",
		rel(f.canary),
		"a/../../outside/canary.txt",
		f.canary,
		"/etc/passwd",
		"etclink/passwd",
		"outlink/canary.txt",
		"leak.txt",
		"a/b/canary.txt",
		"dangling.txt",
	}
	newFiles := []string{
		"../new.txt",
		rel(filepath.Join(f.outside, "new.txt")),
		filepath.Join(f.outside, "new.txt"),
		"outlink/new.txt",
		"outlink/sub/new.txt",
		"a/b/new.txt",
		"dangling.txt",
		"etclink/joshbot-test-new",
	}
	dirs := []string{"..", "../outside", f.outside, "/etc", "etclink", "outlink", "a/b", "a/../.."}

	type call struct {
		tool string
		args args
	}
	var calls []call
	for _, p := range files {
		calls = append(calls,
			call{"read_file", args{"path": p}},
			call{"edit_file", args{"path": p, "old_text": "CANARY", "new_text": "PWNED"}},
			call{"write_file", args{"path": p, "content": "PWNED"}},
			call{"grep", args{"pattern": "CANARY|root", "path": p}},
			call{"list_dir", args{"path": p}},
		)
	}
	for _, p := range newFiles {
		calls = append(calls, call{"write_file", args{"path": p, "content": "PWNED"}})
	}
	for _, p := range dirs {
		calls = append(calls,
			call{"list_dir", args{"path": p}},
			call{"glob", args{"pattern": "**/*", "path": p}},
			call{"grep", args{"pattern": "CANARY|root", "path": p}},
		)
	}

	before := listTree(t, f.outside)
	for _, c := range calls {
		out, err := f.run(t, c.tool, c.args)
		if err == nil {
			t.Errorf("%s %v: succeeded with %q, want a containment error", c.tool, c.args, out)
			continue
		}
		msg := err.Error()
		if strings.Contains(out+msg, "CANARY") || strings.Contains(out+msg, "root:") {
			t.Errorf("%s %v leaked outside content: %q / %v", c.tool, c.args, out, err)
		}
		if !strings.Contains(msg, "outside the workspace") && !strings.Contains(msg, "symbolic link") {
			t.Errorf("%s %v: error does not explain the refusal: %v", c.tool, c.args, err)
		}
	}
	if got := string(mustReadFile(t, f.canary)); got != canaryText {
		t.Fatalf("canary changed to %q", got)
	}
	if after := listTree(t, f.outside); !slices.Equal(before, after) {
		t.Fatalf("outside directory changed:\nbefore %v\nafter  %v", before, after)
	}
	if _, err := os.Lstat("/etc/joshbot-test-new"); err == nil {
		t.Fatal("wrote into /etc")
	}

	// Whole-workspace walks must not wander out through links either. The
	// patterns are echoed in "no matches" messages, so look for what only a
	// real leak would print: the canary's tail, passwd content, or any path
	// below a link that leads outside.
	leaks := []string{"outside secret", "/bin/", "outlink/", "a/b/", "etclink/", "leak.txt", "dangling.txt"}
	for _, c := range []call{
		{"grep", args{"pattern": "CANARY|root:"}},
		{"grep", args{"pattern": "CANARY|root:", "path": "a"}},
		{"glob", args{"pattern": "**/*"}},
		{"glob", args{"pattern": "**"}},
		{"glob", args{"pattern": "**/canary.txt"}},
		{"glob", args{"pattern": "*/*"}},
	} {
		out := f.mustRun(t, c.tool, c.args)
		for _, l := range leaks {
			if strings.Contains(out, l) {
				t.Errorf("%s %v reached outside (%q): %q", c.tool, c.args, l, out)
			}
		}
	}
	out := f.mustRun(t, "list_dir", args{})
	if strings.Contains(out, f.outside) || strings.Contains(out, "/etc") {
		t.Errorf("list_dir revealed an outside link target: %q", out)
	}
}

// TestInsidePathsAllowed is the other half of TestEscapes: forms of path
// that look unusual but stay inside must work.
func TestInsidePathsAllowed(t *testing.T) {
	f := newFixture(t)
	f.write(t, "sub/file.txt", "hello inside\n")
	f.link(t, "sub", "sublink")
	f.link(t, "sub/file.txt", "filelink")

	for _, p := range []string{
		"sub/file.txt", filepath.Join(f.ws, "sub/file.txt"), "./sub/../sub/file.txt",
		"sublink/file.txt", "filelink",
	} {
		if out := f.mustRun(t, "read_file", args{"path": p}); !strings.Contains(out, "hello inside") {
			t.Errorf("read_file %q: %q", p, out)
		}
	}
	for _, p := range []string{".", f.ws, "sub", "sublink", "sub/.."} {
		f.mustRun(t, "list_dir", args{"path": p})
		f.mustRun(t, "glob", args{"pattern": "*", "path": p})
		f.mustRun(t, "grep", args{"pattern": "hello", "path": p})
	}
	f.mustRun(t, "write_file", args{"path": filepath.Join(f.ws, "abs.txt"), "content": "abs"})
	if f.read(t, "abs.txt") != "abs" {
		t.Fatal("absolute write inside the workspace did not land")
	}
	// Writing through an inside link changes the target and keeps the link.
	f.mustRun(t, "write_file", args{"path": "filelink", "content": "via link"})
	if f.read(t, "sub/file.txt") != "via link" {
		t.Fatal("write through inside link did not reach the target")
	}
	if fi, err := os.Lstat(filepath.Join(f.ws, "filelink")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("write through link replaced the link itself")
	}
}

func listTree(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		out = append(out, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func mustReadFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
