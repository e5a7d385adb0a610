package release

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/mod/semver"
)

// RepoPath is the common prefix of every joshbot module path.
const RepoPath = "github.com/joshbot/joshbot"

// Module is one published module and the version the versions file declares.
type Module struct {
	Set     string // module set name in versions.yaml
	Path    string // module path, e.g. github.com/joshbot/joshbot/sandbox
	Version string // declared version, e.g. v0.1.0
}

// Dir is the module's directory relative to the repository root.
func (m Module) Dir() string { return strings.TrimPrefix(strings.TrimPrefix(m.Path, RepoPath), "/") }

// TagPrefix is the prefix of the module's tags: "sandbox/" for sandbox/v0.1.0.
func (m Module) TagPrefix() string { return m.Dir() + "/" }

// Versions is the parsed versions file.
type Versions struct {
	Modules  []Module // published modules in file order
	Excluded []string // module paths that are never published
}

// Lookup returns the published module with the given directory name.
func (v *Versions) Lookup(dir string) (Module, bool) {
	for _, m := range v.Modules {
		if m.Dir() == dir {
			return m, true
		}
	}
	return Module{}, false
}

// ReadVersions parses the versions file at path. The format is the subset of
// YAML that opentelemetry-go's versions.yaml uses: module-sets with version and
// modules, and excluded-modules.
func ReadVersions(path string) (*Versions, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	v := &Versions{}
	var section, set, version, list string
	var setModules []string
	flush := func() error {
		if set == "" {
			return nil
		}
		if !semver.IsValid(version) || semver.Canonical(version) != version {
			return fmt.Errorf("%s: module set %q: version %q is not a canonical semantic version like v0.1.0", path, set, version)
		}
		if len(setModules) == 0 {
			return fmt.Errorf("%s: module set %q lists no modules", path, set)
		}
		for _, p := range setModules {
			v.Modules = append(v.Modules, Module{Set: set, Path: p, Version: version})
		}
		set, version, setModules = "", "", nil
		return nil
	}
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if i := strings.Index(line, "#"); i >= 0 {
			line = line[:i]
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		indent := len(line) - len(strings.TrimLeft(line, " "))
		text := strings.TrimSpace(line)
		switch {
		case indent == 0:
			if err := flush(); err != nil {
				return nil, err
			}
			section = strings.TrimSuffix(text, ":")
			if section != "module-sets" && section != "excluded-modules" {
				return nil, fmt.Errorf("%s:%d: unknown section %q (want module-sets or excluded-modules)", path, n, section)
			}
		case section == "excluded-modules" && strings.HasPrefix(text, "- "):
			v.Excluded = append(v.Excluded, strings.TrimSpace(text[2:]))
		case section == "module-sets" && indent == 2:
			if err := flush(); err != nil {
				return nil, err
			}
			set = strings.TrimSuffix(text, ":")
		case section == "module-sets" && indent == 4 && strings.HasPrefix(text, "version:"):
			version = strings.TrimSpace(strings.TrimPrefix(text, "version:"))
			list = ""
		case section == "module-sets" && indent == 4 && text == "modules:":
			list = "modules"
		case section == "module-sets" && list == "modules" && strings.HasPrefix(text, "- "):
			setModules = append(setModules, strings.TrimSpace(text[2:]))
		default:
			return nil, fmt.Errorf("%s:%d: cannot parse %q", path, n, text)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if err := flush(); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, m := range v.Modules {
		if seen[m.Path] {
			return nil, fmt.Errorf("%s: module %s is listed twice", path, m.Path)
		}
		seen[m.Path] = true
	}
	return v, nil
}

// SetVersion rewrites the version of module set name in the versions file at
// path, keeping everything else byte for byte.
func SetVersion(path, name, version string) error {
	if !semver.IsValid(version) || semver.Canonical(version) != version {
		return fmt.Errorf("version %q is not a canonical semantic version like v0.2.0", version)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	lines := strings.Split(string(data), "\n")
	in, done := false, false
	for i, l := range lines {
		if strings.HasPrefix(l, "  ") && !strings.HasPrefix(l, "   ") {
			in = strings.TrimSpace(l) == name+":"
			continue
		}
		if in && strings.HasPrefix(strings.TrimSpace(l), "version:") {
			lines[i] = "    version: " + version
			done = true
			in = false
		}
	}
	if !done {
		return fmt.Errorf("%s: no module set %q", path, name)
	}
	return os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644)
}

// FindRoot walks up from dir to the directory holding versions.yaml.
func FindRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "versions.yaml")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no versions.yaml above %s", dir)
		}
	}
}
