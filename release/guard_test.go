package release

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// busCopy copies the bus module (a small one) into a temporary directory and
// adds extra, a Go file of package bus, when it is not empty.
func busCopy(t *testing.T, extra string) string {
	t.Helper()
	root, _ := repo(t)
	dir := t.TempDir()
	if err := copyTree(filepath.Join(root, "bus"), dir, nil); err != nil {
		t.Fatal(err)
	}
	if extra != "" {
		if err := os.WriteFile(filepath.Join(dir, "guardprobe.go"), []byte("package bus\n\n"+extra+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func loadBus(t *testing.T, dir string) *API {
	t.Helper()
	a, err := LoadAPI(dir, RepoPath+"/bus", nil)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

const probeMethod = "// Probe is a method the guard test removes.\nfunc (b *Bus) Probe() {}"

// TestGuardCatchesRemovedMethod: removing a method is incompatible, so the
// guard refuses it at the same version and at a patch bump, and accepts it
// with the minor bump semantic versioning asks of v0.
func TestGuardCatchesRemovedMethod(t *testing.T) {
	old := loadBus(t, busCopy(t, probeMethod))
	neu := loadBus(t, busCopy(t, ""))
	for _, v := range []string{"v0.1.0", "v0.1.1"} {
		probs := Guard(old, "v0.1.0", neu, v, "")
		if len(probs) != 1 || !strings.Contains(string(probs[0]), "Probe") || !strings.Contains(string(probs[0]), "v0.2.0") {
			t.Errorf("removed (*Bus).Probe at %s: guard said %q, want one problem naming Probe and v0.2.0", v, probs)
		}
	}
	if probs := Guard(old, "v0.1.0", neu, "v0.2.0", ""); len(probs) != 0 {
		t.Errorf("removed method with a minor bump: guard said %q, want nothing", probs)
	}
	if probs := Guard(old, "v1.4.2", neu, "v1.5.0", ""); len(probs) != 1 {
		t.Errorf("removed method at v1 with a minor bump: guard said %q, want one problem", probs)
	}
}

// TestGuardCatchesChangedSignature: a parameter added to a method is
// incompatible too.
func TestGuardCatchesChangedSignature(t *testing.T) {
	old := loadBus(t, busCopy(t, probeMethod))
	neu := loadBus(t, busCopy(t, "// Probe now takes a count.\nfunc (b *Bus) Probe(n int) {}"))
	probs := Guard(old, "v0.1.0", neu, "v0.1.0", "Probe")
	if len(probs) != 1 || !strings.Contains(string(probs[0]), "Probe") {
		t.Errorf("changed (*Bus).Probe: guard said %q, want one incompatibility naming Probe", probs)
	}
}

// TestGuardCatchesUnmentionedAddition: a compatible addition needs no version
// bump but must be named in the CHANGELOG's Unreleased section.
func TestGuardCatchesUnmentionedAddition(t *testing.T) {
	old := loadBus(t, busCopy(t, ""))
	neu := loadBus(t, busCopy(t, "// ProbeAdded is an addition the guard test makes.\nfunc ProbeAdded() {}"))
	probs := Guard(old, "v0.1.0", neu, "v0.1.0", "- Add ProbeAddedLater, which is another name.\n")
	if len(probs) != 1 || !strings.Contains(string(probs[0]), "func ProbeAdded()") || !strings.Contains(string(probs[0]), "CHANGELOG") {
		t.Errorf("unmentioned addition: guard said %q, want one problem naming func ProbeAdded() and the CHANGELOG", probs)
	}
	if probs := Guard(old, "v0.1.0", neu, "v0.1.0", "- Add `ProbeAdded`.\n"); len(probs) != 0 {
		t.Errorf("mentioned addition: guard said %q, want nothing", probs)
	}
}

func TestBumpAllowsBreak(t *testing.T) {
	for _, c := range []struct {
		old, neu string
		ok       bool
	}{
		{"v0.1.0", "v0.1.0", false}, {"v0.1.0", "v0.1.5", false}, {"v0.1.3", "v0.2.0", true},
		{"v0.9.0", "v1.0.0", true}, {"v1.2.0", "v1.3.0", false}, {"v1.2.0", "v2.0.0", true}, {"v0.2.0", "v0.1.0", false},
	} {
		if got := BumpAllowsBreak(c.old, c.neu); got != c.ok {
			t.Errorf("BumpAllowsBreak(%s, %s) = %v, want %v", c.old, c.neu, got, c.ok)
		}
	}
}
