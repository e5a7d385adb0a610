package release

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// budgets bounds, for some modules, which modules may provide packages to a
// program that imports them (besides the module itself and the standard
// library). The recorded testdata/deps files hold the full lists; these are
// the promises the README makes.
var budgets = map[string][]string{
	"providers": {},
	"memory":    {},
	"bus":       {},
	"apiserver": {},
	"sandbox":   {"golang.org/x/sys", "github.com/landlock-lsm/go-landlock", "kernel.org/pub/linux/libs/security/libcap/psx", "mvdan.cc/sh/v3"},
}

// TestRehearsal publishes every module, at its declared version, into a
// file-system module proxy built from the tree, then builds and runs one
// outside program per module with the workspace off, no replace directive,
// and no network: our modules come from that proxy, third-party ones from the
// local module cache's download directory (the same files the real proxy
// served). Each program's module list and package list are compared with
// testdata/deps/<module>.txt.
func TestRehearsal(t *testing.T) {
	if testing.Short() {
		t.Skip("the publishing rehearsal builds nine programs; it runs in make test (not -short)")
	}
	root, vers := repo(t)
	// Make sure the local module cache holds every third-party module the
	// published modules need, verified against their go.sum files: a no-op
	// when it does (offline), a download through the configured proxy on a
	// fresh machine. That is every module whose content a go.sum vouches
	// for, not only what `go mod download` fetches to build: go mod tidy in
	// an outside module also loads the tests of the packages it imports
	// (mvdan.cc/sh's import github.com/go-quicktest/qt), and a fresh
	// machine's cache has none of those.
	for _, m := range vers.Modules {
		dir := filepath.Join(root, m.Dir())
		args := append([]string{"mod", "download"}, sumZips(t, filepath.Join(dir, "go.sum"))...)
		goCmd(t, []string{"GOWORK=off"}, dir, args...)
	}
	proxy := t.TempDir()
	if err := BuildProxy(root, vers, proxy); err != nil {
		t.Fatal(err)
	}
	realCache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	modcache := t.TempDir()
	env := []string{
		"GOWORK=off",
		"GOTOOLCHAIN=local",
		"GOPROXY=file://" + proxy + ",file://" + filepath.Join(strings.TrimSpace(string(realCache)), "cache", "download"),
		"GONOSUMDB=" + RepoPath,
		// Third-party modules come from the local module cache, whose
		// contents the workspace's go.sum files verified when they were
		// downloaded; the checksum database is not reachable offline.
		"GOSUMDB=off",
		"GOPRIVATE=", "GONOPROXY=", "GOINSECURE=",
		"GOFLAGS=-mod=mod",
		"GOMODCACHE=" + modcache,
	}
	t.Cleanup(func() { goCmd(t, env, modcache, "clean", "-modcache") })
	var outside []Module
	for _, m := range vers.Modules {
		if _, err := os.Stat(filepath.Join("testdata", "outside", m.Dir(), "main.go")); err == nil || m.Dir() == "joshbot" {
			outside = append(outside, m)
		} else {
			t.Errorf("no outside program testdata/outside/%s/main.go for published module %s", m.Dir(), m.Path)
		}
	}
	work := t.TempDir()
	parallel(outside, func(m Module) {
		t.Run(m.Dir(), func(t *testing.T) { rehearse(t, env, work, m) })
	})
}

func rehearse(t *testing.T, env []string, work string, m Module) {
	dir := filepath.Join(work, m.Dir())
	gomod := fmt.Sprintf("module example.com/outside/%s\n\ngo 1.26.0\n\nrequire %s %s\n", m.Dir(), m.Path, m.Version)
	target, prefix, args := ".", m.Dir()+" ok:", []string(nil)
	if m.Dir() == "joshbot" {
		// The binary's module has no importable package: an outside module
		// builds its command as a tool dependency (go install cmd@version
		// refuses a module whose go.mod has replace lines, which joshbot's
		// keeps for development).
		target, prefix, args = m.Path+"/cmd/joshbot", "joshbot ", []string{"version"}
		gomod += "\ntool " + target + "\n"
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	} else if err := copyTree(filepath.Join("testdata", "outside", m.Dir()), dir, nil); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	goCmd(t, env, dir, "mod", "tidy")
	if data, _ := os.ReadFile(filepath.Join(dir, "go.mod")); bytes.Contains(data, []byte("replace")) {
		t.Fatalf("the outside go.mod has a replace directive:\n%s", data)
	}
	bin := filepath.Join(dir, "outside")
	goCmd(t, env, dir, "build", "-trimpath", "-o", bin, target)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	run := exec.CommandContext(ctx, bin, args...)
	run.Dir = dir
	out, err := run.CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), prefix) {
		t.Fatalf("outside program for %s: %v\n%s", m.Path, err, out)
	}
	t.Logf("%s", bytes.TrimSpace(out))

	// -e: modules of the pruned-out graph have only their .mod file in the
	// module cache (no .info), which is all the build list needs.
	mods := strings.Split(goCmd(t, env, dir, "list", "-m", "-e", "-f", "{{.Path}} {{.Version}}", "all"), "\n")[1:] // the first is the program itself
	pkgs := strings.Split(goCmd(t, env, dir, "list", "-deps", "-f", "{{if not .Standard}}{{with .Module}}{{.Path}}{{end}}\t{{.ImportPath}}{{end}}", target), "\n")
	providing := map[string]bool{}
	var imports []string
	for _, l := range pkgs {
		mod, pkg, ok := strings.Cut(l, "\t")
		if !ok || mod == "example.com/outside/"+m.Dir() {
			continue
		}
		providing[mod] = true
		if mod != m.Path { // the module's own packages are not dependencies
			imports = append(imports, pkg)
		}
	}
	var provList []string
	for p := range providing {
		provList = append(provList, p)
	}
	sort.Strings(provList)
	sort.Strings(imports)
	var b strings.Builder
	fmt.Fprintf(&b, "# Dependency budget of a program importing %s %s.\n", m.Path, m.Version)
	fmt.Fprintf(&b, "# Checked by release.TestRehearsal; re-record with `make api-update` and commit a deliberate change.\n")
	fmt.Fprintf(&b, "## modules providing packages\n%s\n", strings.Join(provList, "\n"))
	fmt.Fprintf(&b, "## go list -m all\n%s\n", strings.Join(mods, "\n"))
	fmt.Fprintf(&b, "## go list -deps, standard library and %s's own packages left out\n%s\n", m.Dir(), strings.Join(imports, "\n"))
	got := b.String()

	if allowed, ok := budgets[m.Dir()]; ok {
		ok := map[string]bool{m.Path: true}
		for _, a := range allowed {
			ok[a] = true
		}
		for _, p := range provList {
			if !ok[p] {
				t.Errorf("%s pulls packages from %s; its budget allows only the standard library and %v", m.Path, p, allowed)
			}
		}
	}
	file := filepath.Join("testdata", "deps", m.Dir()+".txt")
	if *update {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, _ := os.ReadFile(file)
	if string(want) != got {
		t.Errorf("the dependencies of a program importing %s differ from release/%s:\n%s\n%s", m.Path, file, lineDiff(string(want), got), rerecord)
	}
}

// goCmd runs the go command in dir with env added and returns its output.
// sumZips returns module@version for each module whose zip the go.sum
// file at path holds a hash of (its lines without "/go.mod").
func sumZips(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // a module with no dependencies
	}
	if err != nil {
		t.Fatal(err)
	}
	var mods []string
	for line := range strings.Lines(string(data)) {
		f := strings.Fields(line)
		if len(f) == 3 && !strings.HasSuffix(f[1], "/go.mod") {
			mods = append(mods, f[0]+"@"+f[1])
		}
	}
	return mods
}

func goCmd(t *testing.T, env []string, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}
