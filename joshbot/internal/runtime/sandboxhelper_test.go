package runtime

import (
	"os"
	"path/filepath"
	goruntime "runtime"
	"testing"
)

// TestSandboxOptionsFindTheHelper: the dedicated helper beside the
// executable is used, with the build ID the build gave, only when the
// build gave one and the file is there; otherwise joshbot is its own
// helper (nil options).
func TestSandboxOptionsFindTheHelper(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skip("the dedicated helper is Linux's")
	}
	dir := t.TempDir()
	exe := filepath.Join(dir, "joshbot")
	helper := filepath.Join(dir, HelperName)
	if o := sandboxOptions(exe, "abc"); o != nil {
		t.Fatalf("no helper file: got %+v, want nil", o)
	}
	if err := os.Mkdir(helper, 0o755); err != nil {
		t.Fatal(err)
	}
	if o := sandboxOptions(exe, "abc"); o != nil {
		t.Fatalf("a directory named %s: got %+v, want nil", HelperName, o)
	}
	os.Remove(helper)
	if err := os.WriteFile(helper, []byte("x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if o := sandboxOptions(exe, ""); o != nil {
		t.Fatalf("a build without the build ID: got %+v, want nil", o)
	}
	o := sandboxOptions(exe, "abc")
	if o == nil || o.Helper != helper || o.HelperBuildID != "abc" {
		t.Fatalf("got %+v, want the helper %s checked against abc", o, helper)
	}
}
