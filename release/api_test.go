package release

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var update = flag.Bool("update", false, "re-record api/<module>.txt and testdata/deps/<module>.txt from the tree (make api-update)")

const rerecord = "if the change is deliberate, re-record with `make api-update` (go test ./release -run 'TestAPI|TestRehearsal' -update) and commit the result"

func repo(t *testing.T) (string, *Versions) {
	t.Helper()
	root, err := FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	v, err := ReadVersions(filepath.Join(root, "versions.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return root, v
}

// parallel runs f for each module, two at a time (the machine has 2 cores and
// each call starts the go command).
func parallel(mods []Module, f func(Module)) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for _, m := range mods {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			f(m)
		}()
	}
	wg.Wait()
}

// TestVersionsFileListsEveryModule: each go.mod in the repository is either
// published at a declared version or excluded by name, and nothing else is named.
func TestVersionsFileListsEveryModule(t *testing.T) {
	root, v := repo(t)
	dirs, err := ModuleDirs(root)
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, m := range v.Modules {
		known[m.Path] = true
	}
	for _, e := range v.Excluded {
		known[e] = true
	}
	for _, d := range dirs {
		p := RepoPath + "/" + d
		if !known[p] {
			t.Errorf("module %s is neither published nor excluded in versions.yaml; add it to a module set or to excluded-modules", p)
		}
		delete(known, p)
	}
	for p := range known {
		t.Errorf("versions.yaml names %s, which has no go.mod in the repository", p)
	}
}

// TestGoLinesAgree: every module declares the go version go.work declares.
func TestGoLinesAgree(t *testing.T) {
	root, _ := repo(t)
	work, err := os.ReadFile(filepath.Join(root, "go.work"))
	if err != nil {
		t.Fatal(err)
	}
	want := GoLine(work)
	dirs, err := ModuleDirs(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		data, err := os.ReadFile(filepath.Join(root, d, "go.mod"))
		if err != nil {
			t.Fatal(err)
		}
		if got := GoLine(data); got != want {
			t.Errorf("%s/go.mod says `go %s`, go.work says `go %s`: every module declares the same go line", d, got, want)
		}
	}
}

// TestAPISnapshots: api/<module>.txt matches each published module's exported
// API, and against the module's last tag (when there is one) the guard passes:
// incompatible changes carry a minor bump, additions are in the CHANGELOG.
func TestAPISnapshots(t *testing.T) {
	root, v := repo(t)
	var mu sync.Mutex
	parallel(v.Modules, func(m Module) {
		api, err := LoadAPI(filepath.Join(root, m.Dir()), m.Path, nil)
		if err != nil {
			t.Errorf("%s: %v", m.Path, err)
			return
		}
		snap := filepath.Join(root, "api", m.Dir()+".txt")
		got := Snapshot(api, m.Version)
		mu.Lock()
		defer mu.Unlock()
		if *update {
			if err := os.MkdirAll(filepath.Dir(snap), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(snap, got, 0o644); err != nil {
				t.Fatal(err)
			}
		} else if want, err := os.ReadFile(snap); err != nil || !bytes.Equal(stripHeader(want), stripHeader(got)) {
			t.Errorf("%s: exported API differs from %s:\n%s\n%s", m.Path, snap, lineDiff(string(stripHeader(want)), string(stripHeader(got))), rerecord)
		}
		t.Logf("%s %s: %d exported names", m.Path, m.Version, len(api.Lines()))
	})
	if t.Failed() {
		return
	}
	// The guard against the last released API of each tagged module.
	for _, m := range v.Modules {
		tag, err := LatestTag(root, m)
		if err != nil {
			t.Fatal(err)
		}
		if tag == "" {
			t.Logf("%s: no tag %sv*, so no released API to compare with (first release)", m.Path, m.TagPrefix())
			continue
		}
		old := checkoutTag(t, root, m.TagPrefix()+tag)
		oldAPI, err := LoadAPI(filepath.Join(old, m.Dir()), m.Path, nil)
		if err != nil {
			t.Fatalf("API of %s at %s: %v", m.Path, tag, err)
		}
		neu, err := LoadAPI(filepath.Join(root, m.Dir()), m.Path, nil)
		if err != nil {
			t.Fatal(err)
		}
		cl, _ := os.ReadFile(filepath.Join(root, m.Dir(), "CHANGELOG.md"))
		for _, p := range Guard(oldAPI, tag, neu, m.Version, Unreleased(cl)) {
			t.Error(p)
		}
	}
}

// checkoutTag extracts the repository at tag into a temporary directory.
func checkoutTag(t *testing.T, root, tag string) string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("sh", "-c", fmt.Sprintf("git -C %q archive %q | tar -x -C %q", root, tag, dir))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("extract %s: %v: %s", tag, err, out)
	}
	return dir
}

func stripHeader(b []byte) []byte {
	if bytes.HasPrefix(b, []byte("#")) {
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			return b[i+1:]
		}
	}
	return b
}

// lineDiff lists the lines only in want (-) and only in got (+).
func lineDiff(want, got string) string {
	w, g := map[string]bool{}, map[string]bool{}
	for _, l := range strings.Split(want, "\n") {
		w[l] = true
	}
	for _, l := range strings.Split(got, "\n") {
		g[l] = true
	}
	var b strings.Builder
	for _, l := range strings.Split(want, "\n") {
		if !g[l] {
			b.WriteString("-" + l + "\n")
		}
	}
	for _, l := range strings.Split(got, "\n") {
		if !w[l] {
			b.WriteString("+" + l + "\n")
		}
	}
	return b.String()
}
