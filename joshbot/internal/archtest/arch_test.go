package archtest

import (
	"bufio"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

const prefix = "github.com/joshbot/joshbot/"

// allowed is the import direction of ARCHITECTURE.md: each module may
// import only the modules listed for it.
var allowed = map[string][]string{
	"bus":       nil,
	"providers": nil,
	"sandbox":   nil,
	"memory":    nil,
	"tools":     {"sandbox", "memory", "bus"},
	"mcpclient": {"sandbox"},
	"agent":     {"providers", "tools", "memory", "bus"},
	"channels":  {"bus"},
	"apiserver": nil,
	"joshbot":   {"agent", "apiserver", "bus", "channels", "mcpclient", "memory", "providers", "sandbox", "tools"},
	// bench is measuring tooling, never released: it drives the binary
	// from outside and uses only the scripted provider.
	"bench": {"providers"},
	// release is publishing tooling, never released: it reads the other
	// modules' source with the go command and imports none of them.
	"release": nil,
}

// allowedPackages are single packages of another module a module may
// import without being allowed the whole module: channels reaches the one
// outbound address guard, sandbox/egress, and nothing else of sandbox;
// channels and mcpclient reach the one durable rewrite, memory/atomicfile
// (and its kill-test harness), and nothing else of memory. Both packages
// use only the standard library.
var allowedPackages = map[string][]string{
	"channels":  {"sandbox/egress", "memory/atomicfile", "memory/atomicfile/atomicfiletest"},
	"mcpclient": {"memory/atomicfile", "memory/atomicfile/atomicfiletest"},
}

// deps is every module m may import from: allowed's, and the modules of
// allowedPackages'.
func deps(m string) []string {
	out := slices.Clone(allowed[m])
	for _, p := range allowedPackages[m] {
		mod, _, _ := strings.Cut(p, "/")
		if !slices.Contains(out, mod) {
			out = append(out, mod)
		}
	}
	return out
}

// closure returns every module m reaches through allowed imports, which is
// what its go.mod may require and replace.
func closure(m string) map[string]bool {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(x string) {
		for _, d := range deps(x) {
			if !seen[d] {
				seen[d] = true
				walk(d)
			}
		}
	}
	walk(m)
	return seen
}

// checkImport reports why module from may not import path, or nil.
func checkImport(from, path string) error {
	rest, ok := strings.CutPrefix(path, prefix)
	if !ok {
		return nil
	}
	to, sub, _ := strings.Cut(rest, "/")
	if to == from {
		return nil
	}
	if _, known := allowed[to]; !known {
		return fmt.Errorf("imports %s, which is not a module of this repository", path)
	}
	if !slices.Contains(allowed[from], to) && !slices.Contains(allowedPackages[from], rest) {
		if len(allowedPackages[from]) > 0 {
			return fmt.Errorf("imports %s: module %s may import only %v and the packages %v (ARCHITECTURE.md)", path, from, allowed[from], allowedPackages[from])
		}
		return fmt.Errorf("imports %s: module %s may import only %v (ARCHITECTURE.md)", path, from, allowed[from])
	}
	if sub == "internal" || strings.HasPrefix(sub, "internal/") || strings.Contains(sub, "/internal/") || strings.HasSuffix(sub, "/internal") {
		return fmt.Errorf("imports %s: another module's internal packages are off limits", path)
	}
	return nil
}

// checkReplace reports why module m's go.mod may not replace target, or nil.
func checkReplace(m, target string) error {
	rest, ok := strings.CutPrefix(target, prefix)
	if !ok {
		return fmt.Errorf("replaces third-party module %s: replaces may only point at sibling modules", target)
	}
	if !closure(m)[rest] {
		return fmt.Errorf("replaces %s, which module %s may not depend on", target, m)
	}
	return nil
}

func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.work not found above the test directory")
		}
		dir = parent
	}
}

func TestCheckersCatchViolations(t *testing.T) {
	for _, tt := range []struct {
		from, path string
		bad        bool
	}{
		{"agent", prefix + "providers", false},
		{"agent", prefix + "providers/providertest", false},
		{"agent", prefix + "channels", true},
		{"providers", prefix + "memory", true},
		{"channels", prefix + "agent", true},
		{"apiserver", prefix + "agent", true},
		{"joshbot", prefix + "tools/internal/x", true},
		{"tools", prefix + "bus", false},
		{"tools", prefix + "nosuch", true},
		{"tools", "github.com/spf13/cobra", false},
		{"channels", prefix + "sandbox/egress", false},
		{"channels", prefix + "sandbox", true},
		{"channels", prefix + "sandbox/fence", true},
		{"channels", prefix + "sandbox/egress/sub", true},
		{"memory", prefix + "sandbox/egress", true},
		{"mcpclient", prefix + "memory/atomicfile", false},
		{"mcpclient", prefix + "memory", true},
		{"channels", prefix + "memory/atomicfile", false},
		{"providers", prefix + "memory/atomicfile", true},
	} {
		if err := checkImport(tt.from, tt.path); (err != nil) != tt.bad {
			t.Errorf("%s -> %s: err = %v, want violation %v", tt.from, tt.path, err, tt.bad)
		}
	}
	if checkReplace("joshbot", "github.com/spf13/cobra") == nil {
		t.Error("a replace of a third-party module was allowed")
	}
	if checkReplace("agent", prefix+"sandbox") != nil {
		t.Error("agent reaches sandbox through tools and must be able to replace it")
	}
	if checkReplace("channels", prefix+"sandbox") != nil {
		t.Error("channels imports sandbox/egress and must be able to replace sandbox")
	}
	if checkReplace("providers", prefix+"agent") == nil {
		t.Error("a leaf replacing a sibling was allowed")
	}
}

func TestImportDirection(t *testing.T) {
	root := repoRoot(t)
	for m := range allowed {
		err := filepath.WalkDir(filepath.Join(root, m), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(p, ".go") {
				return nil
			}
			f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			for _, imp := range f.Imports {
				path := strings.Trim(imp.Path.Value, `"`)
				if err := checkImport(m, path); err != nil {
					rel, _ := filepath.Rel(root, p)
					t.Errorf("%s %v", rel, err)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// modFile is the part of a go.mod these tests read.
type modFile struct {
	module   string
	requires []string
	replaces map[string]string
}

func readMod(t *testing.T, path string) modFile {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	mf := modFile{replaces: map[string]string{}}
	block := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if i := strings.Index(line, "//"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		switch {
		case line == "":
			continue
		case line == ")":
			block = ""
			continue
		case strings.HasSuffix(line, "("):
			block = strings.TrimSpace(strings.TrimSuffix(line, "("))
			continue
		}
		verb, rest := block, line
		if block == "" {
			verb, rest, _ = strings.Cut(line, " ")
		}
		fields := strings.Fields(rest)
		switch verb {
		case "module":
			mf.module = fields[0]
		case "require":
			mf.requires = append(mf.requires, fields[0])
		case "replace":
			old, target, _ := strings.Cut(rest, "=>")
			mf.replaces[strings.Fields(old)[0]] = strings.Fields(target)[0]
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return mf
}

func TestGoModWiring(t *testing.T) {
	root := repoRoot(t)
	for m := range allowed {
		mf := readMod(t, filepath.Join(root, m, "go.mod"))
		if mf.module != prefix+m {
			t.Errorf("%s/go.mod declares module %q, want %q", m, mf.module, prefix+m)
		}
		for old, target := range mf.replaces {
			if err := checkReplace(m, old); err != nil {
				t.Errorf("%s/go.mod %v", m, err)
				continue
			}
			if want := "../" + strings.TrimPrefix(old, prefix); target != want {
				t.Errorf("%s/go.mod replaces %s with %s, want the sibling path %s", m, old, target, want)
			}
		}
		for _, req := range mf.requires {
			rest, ok := strings.CutPrefix(req, prefix)
			if !ok {
				continue
			}
			if !closure(m)[rest] {
				t.Errorf("%s/go.mod requires %s, which it may not depend on", m, req)
			}
			if _, ok := mf.replaces[req]; !ok {
				t.Errorf("%s/go.mod requires %s without a replace to ../%s, so it cannot build with GOWORK=off", m, req, rest)
			}
		}
	}
}

func TestWorkspaceListsEveryModule(t *testing.T) {
	root := repoRoot(t)
	work, err := os.ReadFile(filepath.Join(root, "go.work"))
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || (strings.HasPrefix(d.Name(), ".") && p != root)) {
			return filepath.SkipDir
		}
		if d.Name() == "go.mod" {
			rel, _ := filepath.Rel(root, filepath.Dir(p))
			found = append(found, rel)
		}
		return nil
	})
	sort.Strings(found)
	var want []string
	for m := range allowed {
		want = append(want, m)
	}
	sort.Strings(want)
	if !slices.Equal(found, want) {
		t.Errorf("modules on disk %v, want exactly %v", found, want)
	}
	for _, m := range found {
		if !strings.Contains(string(work), "./"+m+"\n") {
			t.Errorf("go.work does not use ./%s", m)
		}
	}
}

func TestEveryModuleIsDocumentedAndTested(t *testing.T) {
	root := repoRoot(t)
	for m := range allowed {
		dir := filepath.Join(root, m)
		for _, f := range []string{"doc.go", "CHANGELOG.md", "go.mod"} {
			if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
				t.Errorf("module %s lacks %s", m, f)
			}
		}
		tests := 0
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && strings.HasSuffix(p, "_test.go") {
				tests++
			}
			return nil
		})
		if tests == 0 {
			t.Errorf("module %s has no tests", m)
		}
	}
}

// TestEveryPackageHasADocComment fails a package nobody explained: every
// package of every module of the workspace needs a package comment, and a
// library package's opens with "Package <name> " (go doc shows that first
// sentence as the package's synopsis). This is the one copy of the check
// for the whole repository.
func TestEveryPackageHasADocComment(t *testing.T) {
	root := repoRoot(t)
	type pkg struct {
		name string
		doc  string // the first package comment found
	}
	pkgs := map[string]*pkg{} // by directory
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || (strings.HasPrefix(d.Name(), ".") && p != root)) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ParseComments|parser.PackageClauseOnly)
		if err != nil {
			return err
		}
		dir := filepath.Dir(p)
		if pkgs[dir] == nil {
			pkgs[dir] = &pkg{name: f.Name.Name}
		}
		if f.Doc != nil && pkgs[dir].doc == "" {
			pkgs[dir].doc = strings.TrimSpace(f.Doc.Text())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 10 {
		t.Fatalf("found only %d packages; is the walk broken?", len(pkgs))
	}
	for dir, p := range pkgs {
		rel, _ := filepath.Rel(root, dir)
		if err := checkPackageDoc(p.name, p.doc); err != nil {
			t.Errorf("package %s: %v", rel, err)
		}
	}
}

// checkPackageDoc reports what is wrong with the package comment doc of
// package name, or nil.
func checkPackageDoc(name, doc string) error {
	switch {
	case doc == "":
		return errors.New("no package comment: add a doc.go that says what the package is for")
	case name != "main" && !strings.HasPrefix(doc, "Package "+name+" "):
		return fmt.Errorf("the package comment must open with %q, not %q", "Package "+name+" ", firstLine(doc))
	}
	return nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func TestCheckPackageDoc(t *testing.T) {
	for _, tt := range []struct {
		name, doc string
		ok        bool
	}{
		{"bus", "Package bus carries messages.", true},
		{"bus", "", false},
		{"bus", "Bus carries messages.", false},
		{"bus", "Package busy is another package.", false},
		{"main", "Command joshbot is the agent.", true},
		{"main", "", false},
	} {
		if err := checkPackageDoc(tt.name, tt.doc); (err == nil) != tt.ok {
			t.Errorf("checkPackageDoc(%q, %q) = %v", tt.name, tt.doc, err)
		}
	}
}
