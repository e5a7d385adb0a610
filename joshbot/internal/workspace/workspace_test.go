package workspace

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestInitCreatesStarterFilesAndNeverOverwrites(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ws")
	created, err := Init(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"AGENTS.md", "SOUL.md", "USER.md", "TOOLS.md", "MEMORY.md"} {
		if !slices.Contains(created, want) {
			t.Errorf("Init did not create %s (created %v)", want, created)
		}
		fi, err := os.Stat(filepath.Join(dir, want))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v, want 0600", want, fi.Mode().Perm())
		}
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Errorf("workspace mode %v, want 0700", fi.Mode().Perm())
	}
	mine := filepath.Join(dir, "SOUL.md")
	if err := os.WriteFile(mine, []byte("my own soul"), 0o600); err != nil {
		t.Fatal(err)
	}
	again, err := Init(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(again) != 0 {
		t.Errorf("second Init created %v, want nothing", again)
	}
	if b, _ := os.ReadFile(mine); string(b) != "my own soul" {
		t.Errorf("Init overwrote an edited file: %q", b)
	}
}
