package release

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/modfile"
)

// TestReleaseInScratchClone runs the release in a clone of the repository:
// every published module gets its tag, sibling requires name the declared
// versions (replace lines stay), and each CHANGELOG has the release heading.
// A second release after a bump tags only the bumped module.
func TestReleaseInScratchClone(t *testing.T) {
	root, vers := repo(t)
	clone := filepath.Join(t.TempDir(), "joshbot")
	if out, err := exec.Command("git", "clone", "-q", "--no-local", "--depth=1", "file://"+root, clone).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v: %s", err, out)
	}
	for k, v := range map[string]string{"GIT_AUTHOR_NAME": "release test", "GIT_AUTHOR_EMAIL": "release@test.invalid", "GIT_COMMITTER_NAME": "release test", "GIT_COMMITTER_EMAIL": "release@test.invalid"} {
		t.Setenv(k, v)
	}
	date := time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)
	tags, err := Release(clone, ReleaseOptions{Date: date})
	if err != nil {
		t.Fatal(err)
	}
	if len(tags) != len(vers.Modules) {
		t.Errorf("tags %v, want one per published module (%d)", tags, len(vers.Modules))
	}
	have, err := Git(clone, "tag", "--list")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range vers.Modules {
		tag := m.TagPrefix() + m.Version
		if !strings.Contains("\n"+have+"\n", "\n"+tag+"\n") {
			t.Errorf("tag %s missing; tags: %q", tag, have)
		}
		cl, err := os.ReadFile(filepath.Join(clone, m.Dir(), "CHANGELOG.md"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(cl), "## Unreleased\n\n## "+m.Version+" - 2026-12-03\n") {
			t.Errorf("%s/CHANGELOG.md lacks the heading %q under an empty Unreleased section", m.Dir(), "## "+m.Version+" - 2026-12-03")
		}
	}
	declared := map[string]string{}
	for _, m := range vers.Modules {
		declared[m.Path] = m.Version
	}
	dirs, _ := ModuleDirs(clone)
	rewritten := 0
	for _, d := range dirs {
		data, err := os.ReadFile(filepath.Join(clone, d, "go.mod"))
		if err != nil {
			t.Fatal(err)
		}
		f, err := modfile.Parse(d+"/go.mod", data, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range f.Require {
			if want, ok := declared[r.Mod.Path]; ok {
				rewritten++
				if r.Mod.Version != want {
					t.Errorf("%s/go.mod requires %s %s, want %s", d, r.Mod.Path, r.Mod.Version, want)
				}
			}
		}
		if strings.Contains(string(data), "v0.0.0-00010101000000-000000000000") {
			t.Errorf("%s/go.mod still has a zero pseudo-version", d)
		}
		if d == "agent" && len(f.Replace) == 0 {
			t.Errorf("agent/go.mod lost its replace lines; they stay for development")
		}
	}
	if rewritten == 0 {
		t.Error("no sibling require lines found to check")
	}
	if st, _ := Git(clone, "status", "--porcelain"); st != "" {
		t.Errorf("release left uncommitted changes:\n%s", st)
	}
	// The guard's baseline is the API at the last tag: extracted from the
	// clone, it type-checks, and it equals the API of the tree just tagged.
	if tag, err := LatestTag(clone, Module{Path: RepoPath + "/bus"}); err != nil || tag != "v0.1.0" {
		t.Fatalf("LatestTag(bus) = %q, %v; want v0.1.0", tag, err)
	}
	atTag, err := LoadAPI(filepath.Join(checkoutTag(t, clone, "bus/v0.1.0"), "bus"), RepoPath+"/bus", nil)
	if err != nil {
		t.Fatal(err)
	}
	now, err := LoadAPI(filepath.Join(clone, "bus"), RepoPath+"/bus", nil)
	if err != nil {
		t.Fatal(err)
	}
	if probs := Guard(atTag, "v0.1.0", now, "v0.1.0", ""); len(probs) != 0 || len(atTag.Lines()) == 0 {
		t.Errorf("bus at its tag against the same tree: %d names, guard said %q", len(atTag.Lines()), probs)
	}
	// A later release of one bumped module.
	if err := SetVersion(filepath.Join(clone, "versions.yaml"), "bus", "v0.2.0"); err != nil {
		t.Fatal(err)
	}
	if _, err := Git(clone, "commit", "-qam", "bump bus"); err != nil {
		t.Fatal(err)
	}
	tags, err = Release(clone, ReleaseOptions{Date: date.AddDate(0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	if len(tags) != 1 || tags[0] != "bus/v0.2.0" {
		t.Errorf("second release tagged %v, want [bus/v0.2.0]", tags)
	}
	agentMod, _ := os.ReadFile(filepath.Join(clone, "agent", "go.mod"))
	if !strings.Contains(string(agentMod), RepoPath+"/bus v0.2.0") {
		t.Errorf("agent/go.mod does not require bus v0.2.0 after the bump:\n%s", agentMod)
	}
	cl, _ := os.ReadFile(filepath.Join(clone, "bus", "CHANGELOG.md"))
	if !strings.Contains(string(cl), "## Unreleased\n\n## v0.2.0 - 2026-12-04\n\n## v0.1.0 - 2026-12-03\n") {
		t.Errorf("bus/CHANGELOG.md headings wrong:\n%s", cl[:min(len(cl), 600)])
	}
}
