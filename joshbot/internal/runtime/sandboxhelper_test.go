package runtime

import (
	"os"
	"path/filepath"
	goruntime "runtime"
	"testing"

	"github.com/joshbot/joshbot/sandbox"
)

// TestSandboxOptionsFindTheHelper: the dedicated helper beside the
// executable is used, with the build ID the build gave, only when the
// build gave one and the file is there; otherwise joshbot is its own
// helper (no Helper). Every sandbox keeps its probe's report under the
// state directory's cache, outside the build caches commands can write.
func TestSandboxOptionsFindTheHelper(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skip("the dedicated helper is Linux's")
	}
	dir := t.TempDir()
	exe := filepath.Join(dir, "joshbot")
	helper := filepath.Join(dir, HelperName)
	home := filepath.Join(dir, "home")
	none := func(o *sandbox.Options) bool {
		return o != nil && o.Helper == "" && o.HelperBuildID == "" && o.ProbeCache == filepath.Join(home, "cache", ProbeCacheName)
	}
	if o := sandboxOptions(home, exe, "abc"); !none(o) {
		t.Fatalf("no helper file: got %+v, want joshbot as its own helper and the probe cache", o)
	}
	if err := os.Mkdir(helper, 0o755); err != nil {
		t.Fatal(err)
	}
	if o := sandboxOptions(home, exe, "abc"); !none(o) {
		t.Fatalf("a directory named %s: got %+v, want joshbot as its own helper and the probe cache", HelperName, o)
	}
	os.Remove(helper)
	if err := os.WriteFile(helper, []byte("x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if o := sandboxOptions(home, exe, ""); !none(o) {
		t.Fatalf("a build without the build ID: got %+v, want joshbot as its own helper and the probe cache", o)
	}
	o := sandboxOptions(home, exe, "abc")
	if o.Helper != helper || o.HelperBuildID != "abc" || o.ProbeCache != filepath.Join(home, "cache", ProbeCacheName) {
		t.Fatalf("got %+v, want the helper %s checked against abc", o, helper)
	}
}
