package archtest

import (
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

const binaryPrefix = prefix + "joshbot/"

// leaves are the binary's helper packages: they import none of the
// packages drawn above them in joshbot/doc.go.
var leaves = []string{
	"internal/config", "internal/configedit", "internal/configmigrate", "internal/jsonkeys", "internal/output", "internal/redact", "internal/cron",
	"internal/tuning", "internal/workspace", "internal/footprint",
	"internal/term", "internal/docscheck", "internal/devicelogin", "internal/onboard", "internal/report", "internal/termsafe", "internal/injection",
	"internal/soaktest", "internal/stackstart",
}

// binaryAllowed is the drawing of joshbot/doc.go: for each package of the
// binary, the packages of the binary it may import (leaves are allowed to
// every package but each other's callers; see allowedInBinary).
var binaryAllowed = map[string][]string{
	"cmd/joshbot":         {"internal/cli", "internal/stackstart"},
	"cmd/joshbot-sandbox": nil,
	"internal/cli":        {"internal/runtime", "internal/gateway", "internal/serve", "internal/statecmd", "internal/cmdutil"},
	"internal/statecmd":   {"internal/runtime", "internal/cmdutil"},
	"internal/cmdutil":    {"internal/runtime"},
	"internal/gateway":    {"internal/runtime"},
	"internal/serve":      {"internal/runtime"},
	"internal/runtime":    nil,
}

// adapters are the channel adapter packages: only the gateway's surface
// file may import them.
var adapters = []string{"channels/telegram", "channels/discord", "channels/slack", "channels/webhook"}

// allowedInBinary reports why file (in package pkg, relative to the joshbot
// module) may not import path, or nil.
func allowedInBinary(pkg, file, path string) error {
	if rest, ok := strings.CutPrefix(path, binaryPrefix); ok {
		if rest == pkg {
			return nil
		}
		if slices.Contains(leaves, pkg) {
			if slices.Contains(leaves, rest) {
				return nil
			}
			return fmt.Errorf("imports %s: a leaf package imports only other leaves", path)
		}
		if slices.Contains(binaryAllowed[pkg], rest) || (slices.Contains(leaves, rest) && pkg != "cmd/joshbot") {
			return nil
		}
		if pkg == "cmd/joshbot" {
			return fmt.Errorf("imports %s: package main holds only the sandbox helper check, cli.Main and the stackstart import (joshbot/doc.go)", path)
		}
		return fmt.Errorf("imports %s: %s may import only %v and the leaves (joshbot/doc.go)", path, pkg, binaryAllowed[pkg])
	}
	rest, ok := strings.CutPrefix(path, prefix)
	if !ok {
		return nil
	}
	isAdapter := slices.ContainsFunc(adapters, func(a string) bool { return rest == a || strings.HasPrefix(rest, a+"/") })
	switch {
	case isAdapter && pkg == "internal/gateway" && file == "surface.go":
		return nil
	case isAdapter:
		return fmt.Errorf("imports the channel adapter %s: only internal/gateway/surface.go may (joshbot/doc.go)", path)
	case rest == "apiserver" && (pkg == "cmd/joshbot" || pkg == "internal/cli" || pkg == "internal/statecmd" || pkg == "internal/cmdutil" || pkg == "internal/gateway"):
		return fmt.Errorf("imports %s: only internal/serve (and the runtime's service clients) speak apiserver (joshbot/doc.go)", path)
	}
	return nil
}

func TestBinaryPackageRulesCatchViolations(t *testing.T) {
	for _, tt := range []struct {
		pkg, file, path string
		bad             bool
	}{
		{"internal/cli", "agent.go", prefix + "channels/telegram", true},
		{"internal/cli", "serve.go", prefix + "apiserver", true},
		{"cmd/joshbot", "gateway.go", prefix + "channels/discord", true},
		{"internal/gateway", "surface.go", prefix + "channels/slack", false},
		{"internal/gateway", "turn.go", prefix + "channels/telegram", true},
		{"internal/gateway", "turn.go", prefix + "channels", false},
		{"internal/gateway", "gateway.go", binaryPrefix + "internal/serve", true},
		{"internal/runtime", "runtime.go", binaryPrefix + "internal/gateway", true},
		{"internal/config", "x.go", binaryPrefix + "internal/runtime", true},
		{"internal/cron", "x.go", binaryPrefix + "internal/config", false},
		{"internal/serve", "serve.go", prefix + "apiserver", false},
		{"internal/cli", "root.go", binaryPrefix + "internal/gateway", false},
		{"cmd/joshbot", "main.go", binaryPrefix + "internal/cli", false},
		{"cmd/joshbot", "main.go", binaryPrefix + "internal/config", true},
		{"cmd/joshbot", "main.go", binaryPrefix + "internal/runtime", true},
	} {
		if err := allowedInBinary(tt.pkg, tt.file, tt.path); (err != nil) != tt.bad {
			t.Errorf("%s/%s importing %s: error %v, want bad=%v", tt.pkg, tt.file, tt.path, err, tt.bad)
		}
	}
}

// TestBinaryPackages holds the joshbot module's packages to the drawing in
// joshbot/doc.go. Test files are held to it too, except that they may
// import what the package's callers import (a test of the gateway drives
// real adapters through the surface).
func TestBinaryPackages(t *testing.T) {
	mod := filepath.Join(repoRoot(t), "joshbot")
	var pkgs []string
	err := filepath.WalkDir(mod, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() || strings.Contains(p, "testdata") {
			return nil
		}
		rel, _ := filepath.Rel(mod, p)
		files, _ := filepath.Glob(filepath.Join(p, "*.go"))
		if len(files) > 0 && rel != "." {
			pkgs = append(pkgs, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(pkgs)
	for _, pkg := range pkgs {
		if _, drawn := binaryAllowed[pkg]; !drawn && !slices.Contains(leaves, pkg) && pkg != "internal/archtest" {
			t.Errorf("%s is not in the drawing of joshbot/doc.go: add it there and to binaryAllowed or leaves", pkg)
			continue
		}
		files, _ := filepath.Glob(filepath.Join(mod, pkg, "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range af.Imports {
				path := strings.Trim(imp.Path.Value, `"`)
				if err := allowedInBinary(pkg, filepath.Base(f), path); err != nil {
					t.Errorf("%s/%s %v", pkg, filepath.Base(f), err)
				}
			}
		}
	}
}
