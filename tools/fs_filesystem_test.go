package tools

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/joshbot/joshbot/sandbox"
)

// TestFilesystemTool: the one filesystem tool runs each of the six file
// tools as an operation, through the same registry path, so it keeps their
// containment, taint gate and identity-file protection.
func TestFilesystemTool(t *testing.T) {
	f := newFixture(t)
	if err := RegisterFilesystemTool(f.reg); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"read_file", "write_file", "edit_file", "list_dir", "glob", "grep"} {
		if _, ok := f.reg.Get(n); !ok {
			t.Fatalf("%s is no longer registered beside filesystem", n)
		}
	}
	f.write(t, "notes.txt", "alpha\nbeta\n")
	fsx := func(ctx context.Context, a args) (string, error) { return f.reg.Execute(ctx, "filesystem", raw(a)) }
	bg := context.Background()

	for _, c := range []struct {
		a    args
		want string
	}{
		{args{"operation": "read_file", "path": "notes.txt"}, "beta"},
		{args{"operation": "write_file", "path": "new.txt", "content": "gamma\n"}, "new.txt"},
		{args{"operation": "edit_file", "path": "new.txt", "old_text": "gamma", "new_text": "delta"}, "new.txt"},
		{args{"operation": "list_dir"}, "notes.txt"},
		{args{"operation": "glob", "pattern": "*.txt"}, "new.txt"},
		{args{"operation": "grep", "pattern": "delta"}, "new.txt"},
	} {
		out, err := fsx(bg, c.a)
		if err != nil || !strings.Contains(out, c.want) {
			t.Errorf("%v: %q, %v; want it to mention %q", c.a, out, err, c.want)
		}
	}
	if got := f.read(t, "new.txt"); got != "delta\n" {
		t.Fatalf("new.txt = %q after write and edit through filesystem", got)
	}

	// Containment: the canary outside the workspace stays out.
	out, err := fsx(bg, args{"operation": "read_file", "path": f.canary})
	if err == nil || strings.Contains(out, canaryText) || strings.Contains(err.Error(), canaryText) {
		t.Fatalf("read outside the workspace: %q, %v", out, err)
	}

	// Arguments are checked against the operation's own schema.
	_, err = fsx(bg, args{"operation": "read_file"})
	var ae *ArgumentError
	if !errors.As(err, &ae) || ae.Tool != "read_file" || ae.Argument != "path" || !ae.Missing {
		t.Fatalf("read_file without path: %v", err)
	}
	_, err = fsx(bg, args{"operation": "delete_file", "path": "notes.txt"})
	if !errors.As(err, &ae) || ae.Argument != "operation" || !strings.Contains(err.Error(), "read_file") {
		t.Fatalf("unknown operation: %v", err)
	}
	if _, err = fsx(bg, args{"path": "notes.txt"}); !errors.As(err, &ae) || !ae.Missing || ae.Argument != "operation" {
		t.Fatalf("no operation: %v", err)
	}

	// Identity files: refused without a human, as with write_file.
	_, err = fsx(WithTaint(bg, &Taint{}), args{"operation": "write_file", "path": "AGENTS.md", "content": "obey"})
	if !errors.Is(err, ErrProtectedFile) {
		t.Fatalf("AGENTS.md through filesystem: %v", err)
	}

	// Taint: a read through filesystem taints the turn, and a later write
	// through it needs a human, who is asked once, about write_file.
	taint := &Taint{}
	no := &asked{d: sandbox.Deny}
	ctx := sandbox.WithApprover(WithTaint(bg, taint), no)
	if _, err := fsx(ctx, args{"operation": "read_file", "path": "notes.txt"}); err != nil || !taint.Tainted() {
		t.Fatalf("read through filesystem did not taint: %v", err)
	}
	_, err = fsx(ctx, args{"operation": "write_file", "path": "steered.txt", "content": "x"})
	if !errors.Is(err, ErrUntrustedAction) || no.count() != 1 || no.reqs[0].Tool != "write_file" {
		t.Fatalf("tainted write through filesystem: %v, asked %d", err, no.count())
	}
	if _, err := os.Stat(filepath.Join(f.ws, "steered.txt")); err == nil {
		t.Fatal("refused write happened")
	}
}

// TestFilesystemToolFollowsTheRegistry: an operation whose tool is not
// registered (a read-only registry) is not offered and cannot be called.
func TestFilesystemToolFollowsTheRegistry(t *testing.T) {
	f := newFixture(t)
	f.reg.Unregister("read-only", "write_file", "edit_file")
	if err := RegisterFilesystemTool(f.reg); err != nil {
		t.Fatal(err)
	}
	tool, _ := f.reg.Get("filesystem")
	if s := string(tool.Parameters()); strings.Contains(s, "write_file") || !strings.Contains(s, "read_file") {
		t.Fatalf("schema offers what is not registered: %s", s)
	}
	_, err := f.reg.Execute(context.Background(), "filesystem", raw(args{"operation": "write_file", "path": "x", "content": "y"}))
	if err == nil {
		t.Fatal("write_file through filesystem on a read-only registry ran")
	}
	if _, err := os.Stat(filepath.Join(f.ws, "x")); err == nil {
		t.Fatal("file written")
	}
	if err := RegisterFilesystemTool(NewRegistry()); err == nil {
		t.Fatal("filesystem registered with no file tools to run")
	}
}

// The filesystem tool's schema recorded in schemas_gen.go is used only for
// the builtin file tools' schemas: a read_file with another schema gets
// its own arguments merged, as without the record.
func TestFilesystemToolSchemaFollowsTheFileTools(t *testing.T) {
	reg := NewRegistry()
	if err := reg.Register(&fakeTool{name: "read_file", params: `{"type":"object","properties":{"page":{"type":"integer","description":"Page to read."}}}`}); err != nil {
		t.Fatal(err)
	}
	if err := RegisterFilesystemTool(reg); err != nil {
		t.Fatal(err)
	}
	tool, _ := reg.Get("filesystem")
	if s := string(tool.Parameters()); !strings.Contains(s, `"page"`) || strings.Contains(s, `"offset"`) {
		t.Fatalf("schema is not the one merged from the registered read_file: %s", s)
	}
}
