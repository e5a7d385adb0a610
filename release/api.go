package release

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"

	"golang.org/x/exp/apidiff"
)

// API is the exported surface of one module: its importable, non-internal,
// non-main packages as go/types sees them, and the snapshot lines built from them.
type API struct {
	Path     string           // module path
	Packages []*types.Package // sorted by path
}

// LoadAPI type-checks the module in dir from the compiler's export data
// (go list -export) with the workspace off, so dir may be a temporary copy.
func LoadAPI(dir, modPath string, env []string) (*API, error) {
	cmd := exec.Command("go", "list", "-e", "-export", "-deps", "-json=ImportPath,Name,Export,DepOnly,Module,Error", "./...")
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GOWORK=off"), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -export in %s: %v: %s", dir, err, stderr.String())
	}
	type pkg struct {
		ImportPath, Name, Export string
		DepOnly                  bool
		Module                   *struct{ Path string }
		Error                    *struct{ Err string }
	}
	exports := map[string]string{}
	var own []string
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			return nil, err
		}
		if p.Error != nil {
			return nil, fmt.Errorf("%s: %s", p.ImportPath, p.Error.Err)
		}
		exports[p.ImportPath] = p.Export
		if !p.DepOnly && p.Module != nil && p.Module.Path == modPath && p.Name != "main" && !isInternal(p.ImportPath) {
			own = append(own, p.ImportPath)
		}
	}
	sort.Strings(own)
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := exports[path]
		if !ok || f == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	})
	api := &API{Path: modPath}
	for _, p := range own {
		tp, err := imp.Import(p)
		if err != nil {
			return nil, fmt.Errorf("import %s: %w", p, err)
		}
		api.Packages = append(api.Packages, tp)
	}
	return api, nil
}

func isInternal(path string) bool {
	for _, e := range strings.Split(path, "/") {
		if e == "internal" {
			return true
		}
	}
	return false
}

// APILine is one exported name of the snapshot.
type APILine struct {
	Text string // "pkg sandbox, method (*Sandbox) Command(...)"
	Name string // the identifier the CHANGELOG must mention: "Command"
}

// Lines returns the snapshot lines of the API in sorted order, one per
// exported constant, variable, function, type, method, struct field and
// interface method, in the manner of the Go project's api/go1.N.txt.
func (a *API) Lines() []APILine {
	var lines []APILine
	for _, p := range a.Packages {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.Path(), RepoPath), "/")
		qual := types.RelativeTo(p)
		add := func(name, format string, args ...any) {
			lines = append(lines, APILine{Text: "pkg " + rel + ", " + fmt.Sprintf(format, args...), Name: name})
		}
		sc := p.Scope()
		for _, name := range sc.Names() {
			obj := sc.Lookup(name)
			if !obj.Exported() {
				continue
			}
			switch o := obj.(type) {
			case *types.Const:
				add(name, "const %s %s", name, types.TypeString(o.Type(), qual))
			case *types.Var:
				add(name, "var %s %s", name, typeString(o.Type(), qual))
			case *types.Func:
				add(name, "func %s%s", name, sigString(o.Type().(*types.Signature), qual))
			case *types.TypeName:
				typeLines(o, qual, add)
			}
		}
	}
	sort.Slice(lines, func(i, j int) bool { return lines[i].Text < lines[j].Text })
	return lines
}

func typeLines(o *types.TypeName, qual types.Qualifier, add func(name, format string, args ...any)) {
	name := o.Name()
	head := name
	if n, ok := o.Type().(*types.Named); ok && n.TypeParams().Len() > 0 {
		var tps []string
		for i := 0; i < n.TypeParams().Len(); i++ {
			tp := n.TypeParams().At(i)
			tps = append(tps, tp.Obj().Name()+" "+types.TypeString(tp.Constraint(), qual))
		}
		head += "[" + strings.Join(tps, ", ") + "]"
	}
	if o.IsAlias() {
		add(name, "type %s = %s", head, types.TypeString(types.Unalias(o.Type()), qual))
		return
	}
	switch u := o.Type().Underlying().(type) {
	case *types.Struct:
		add(name, "type %s struct", head)
		for i := 0; i < u.NumFields(); i++ {
			f := u.Field(i)
			if !f.Exported() {
				continue
			}
			if f.Embedded() {
				add(f.Name(), "type %s struct, embedded %s", head, types.TypeString(f.Type(), qual))
			} else {
				add(f.Name(), "type %s struct, %s %s", head, f.Name(), typeString(f.Type(), qual))
			}
		}
	case *types.Interface:
		add(name, "type %s interface", head)
		for i := 0; i < u.NumExplicitMethods(); i++ {
			m := u.ExplicitMethod(i)
			if m.Exported() {
				add(m.Name(), "type %s interface, %s%s", head, m.Name(), sigString(m.Type().(*types.Signature), qual))
			}
		}
		for i := 0; i < u.NumEmbeddeds(); i++ {
			add(name, "type %s interface, embedded %s", head, types.TypeString(u.EmbeddedType(i), qual))
		}
	default:
		add(name, "type %s %s", head, types.TypeString(u, qual))
	}
	if n, ok := o.Type().(*types.Named); ok {
		for i := 0; i < n.NumMethods(); i++ {
			m := n.Method(i)
			if !m.Exported() {
				continue
			}
			sig := m.Type().(*types.Signature)
			recv := name
			if _, ptr := sig.Recv().Type().(*types.Pointer); ptr {
				recv = "*" + name
			}
			add(m.Name(), "method (%s) %s%s", recv, m.Name(), sigString(sig, qual))
		}
	}
}

// Snapshot renders the snapshot file of a module at a version.
func Snapshot(a *API, version string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Exported API of %s %s. Generated by `make api-update`; do not edit.\n", a.Path, version)
	for _, l := range a.Lines() {
		b.WriteString(l.Text + "\n")
	}
	return b.Bytes()
}

// Problem is one thing the API guard refuses.
type Problem string

// Guard compares a module's API at its last release (old, at version
// oldVersion) with its API now (neu, at the version the versions file
// declares) and returns what is wrong:
//   - an incompatible change (apidiff) needs a minor bump for v0 (v0.1.x to
//     v0.2.0) or a major bump from v1 on;
//   - every added name must appear, as a whole word, in the text of the
//     module's CHANGELOG Unreleased section (for a method or field its own
//     name, e.g. "Command" for (*Sandbox).Command).
func Guard(old *API, oldVersion string, neu *API, newVersion, unreleased string) []Problem {
	var probs []Problem
	rep := apidiff.ModuleChanges(&apidiff.Module{Path: old.Path, Packages: old.Packages}, &apidiff.Module{Path: neu.Path, Packages: neu.Packages})
	var incompatible []string
	for _, c := range rep.Changes {
		if !c.Compatible {
			incompatible = append(incompatible, c.Message)
		}
	}
	if len(incompatible) > 0 && !BumpAllowsBreak(oldVersion, newVersion) {
		probs = append(probs, Problem(fmt.Sprintf("%s: incompatible API changes since %s need the version in versions.yaml raised to %s (v0: a minor bump), it says %s:\n\t%s",
			neu.Path, oldVersion, NextBreaking(oldVersion), newVersion, strings.Join(incompatible, "\n\t"))))
	}
	had := map[string]bool{}
	for _, l := range old.Lines() {
		had[l.Text] = true
	}
	for _, l := range neu.Lines() {
		if had[l.Text] || mentions(unreleased, l.Name) {
			continue
		}
		probs = append(probs, Problem(fmt.Sprintf("%s: new API %q is not mentioned in the Unreleased section of its CHANGELOG.md (name %s in the entry that adds it)", neu.Path, l.Text, l.Name)))
	}
	return probs
}

func mentions(text, name string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], name)
		if j < 0 {
			return false
		}
		j += i
		before := j == 0 || !isIdent(text[j-1])
		after := j+len(name) == len(text) || !isIdent(text[j+len(name)])
		if before && after {
			return true
		}
		i = j + 1
	}
}

func isIdent(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// sigString prints a signature without parameter names, so renaming a
// parameter does not change the snapshot: "(context.Context, string) error".
func sigString(sig *types.Signature, qual types.Qualifier) string {
	unnamed := func(t *types.Tuple) *types.Tuple {
		vars := make([]*types.Var, t.Len())
		for i := range vars {
			vars[i] = types.NewParam(0, nil, "", t.At(i).Type())
		}
		return types.NewTuple(vars...)
	}
	s := types.NewSignatureType(nil, nil, nil, unnamed(sig.Params()), unnamed(sig.Results()), sig.Variadic())
	out := strings.TrimPrefix(types.TypeString(s, qual), "func")
	if sig.TypeParams().Len() > 0 {
		var names []string
		for i := 0; i < sig.TypeParams().Len(); i++ {
			tp := sig.TypeParams().At(i)
			names = append(names, tp.Obj().Name()+" "+types.TypeString(tp.Constraint(), qual))
		}
		out = "[" + strings.Join(names, ", ") + "]" + out
	}
	return out
}

// typeString prints t, leaving out parameter names when t is a function type
// literal (a struct field or variable holding a callback).
func typeString(t types.Type, qual types.Qualifier) string {
	if sig, ok := t.(*types.Signature); ok {
		return "func" + sigString(sig, qual)
	}
	return types.TypeString(t, qual)
}
