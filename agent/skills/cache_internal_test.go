package skills

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// newCachedLibrary is a library over a fresh workspace whose cache takes
// files as soon as they are read (no racy window), with skill name
// written and trusted.
func newCachedLibrary(t *testing.T, name, description string, window time.Duration) (*Library, string) {
	t.Helper()
	ws := t.TempDir()
	lib, err := Open(ws, filepath.Join(t.TempDir(), "skills.trust"))
	if err != nil {
		t.Fatal(err)
	}
	lib.cache.window = window
	if _, err := lib.Write(name, skillText(name, description)); err != nil {
		t.Fatal(err)
	}
	if _, err := lib.Trust(name); err != nil {
		t.Fatal(err)
	}
	return lib, filepath.Join(ws, "skills", name, "SKILL.md")
}

func skillText(name, description string) string {
	return "---\nname: " + name + "\ndescription: " + description + "\n---\nDo the thing.\n"
}

func listed(lib *Library, name string) bool {
	return slices.ContainsFunc(lib.Summaries(), func(l string) bool { return strings.Contains(l, name) })
}

// An approved skill edited after the library cached it is untrusted at
// the next call, even when the edit keeps the file's size.
func TestCachedSkillEditedLaterIsUntrusted(t *testing.T) {
	lib, path := newCachedLibrary(t, "notes", "Keeps notes.", time.Nanosecond)
	if !listed(lib, "notes") {
		t.Fatal("the trusted skill is not in the index")
	}
	// Past any clock tick, so the edit's change time differs from the
	// cached one however coarse the file system's timestamps are.
	time.Sleep(50 * time.Millisecond)
	if err := os.WriteFile(path, []byte(skillText("notes", "Leaks notes.")), 0o600); err != nil {
		t.Fatal(err)
	}
	if listed(lib, "notes") {
		t.Fatal("a skill edited since it was approved is still in the index")
	}
	list, err := lib.List()
	if err != nil {
		t.Fatal(err)
	}
	for _, sk := range list {
		if sk.Name == "notes" && (sk.Trusted || sk.Description != "Leaks notes.") {
			t.Fatalf("List after the edit: %+v", sk)
		}
	}
}

// With the real racy window, an edit right after a read (within the same
// clock tick, possibly) is seen too: the file was never cached.
func TestSkillEditedRightAfterReadIsUntrusted(t *testing.T) {
	lib, path := newCachedLibrary(t, "notes", "Keeps notes.", 0)
	if !listed(lib, "notes") {
		t.Fatal("the trusted skill is not in the index")
	}
	if err := os.WriteFile(path, []byte(skillText("notes", "Leaks notes.")), 0o600); err != nil {
		t.Fatal(err)
	}
	if listed(lib, "notes") {
		t.Fatal("a skill edited right after a read is still in the index")
	}
}

// Trusting and untrusting replace the store; the cached map of the old
// one is not served.
func TestCachedTrustStoreFollowsTrustAndUntrust(t *testing.T) {
	lib, _ := newCachedLibrary(t, "notes", "Keeps notes.", time.Nanosecond)
	if !listed(lib, "notes") {
		t.Fatal("the trusted skill is not in the index")
	}
	if err := lib.Untrust("notes"); err != nil {
		t.Fatal(err)
	}
	if listed(lib, "notes") {
		t.Fatal("an untrusted skill is still in the index")
	}
	if _, err := lib.Trust("notes"); err != nil {
		t.Fatal(err)
	}
	if !listed(lib, "notes") {
		t.Fatal("a skill trusted again is not in the index")
	}
}

// A removed skill leaves the index and the cache.
func TestRemovedSkillLeavesTheCache(t *testing.T) {
	lib, path := newCachedLibrary(t, "notes", "Keeps notes.", time.Nanosecond)
	if !listed(lib, "notes") {
		t.Fatal("the trusted skill is not in the index")
	}
	if err := os.RemoveAll(filepath.Dir(path)); err != nil {
		t.Fatal(err)
	}
	if listed(lib, "notes") {
		t.Fatal("a removed skill is still in the index")
	}
	if n := len(lib.cache.files); n != 1 {
		t.Fatalf("%d cache entries, want the trust store's alone", n)
	}
}

// Unchanged files are served from the cache: an index call then costs a
// fraction of the allocations of one that reads, hashes and parses every
// file and the trust store.
func TestUnchangedSkillsAreNotReadAgain(t *testing.T) {
	cached, _ := newCachedLibrary(t, "notes", "Keeps notes.", time.Nanosecond)
	uncached, _ := newCachedLibrary(t, "notes", "Keeps notes.", time.Hour)
	if !listed(cached, "notes") || !listed(uncached, "notes") {
		t.Fatal("the trusted skill is not in the index")
	}
	c := testing.AllocsPerRun(20, func() { cached.Summaries() })
	u := testing.AllocsPerRun(20, func() { uncached.Summaries() })
	if c*2 > u {
		t.Fatalf("cached index: %.0f allocations a call, uncached %.0f: the cache is not used", c, u)
	}
}
