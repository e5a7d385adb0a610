package release

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"
)

// RewriteRequires returns the go.mod data with every require of a sibling
// module set to the version vers declares for it. Replace lines stay: they
// serve development in the tree and are ignored when the module is a dependency.
func RewriteRequires(gomod []byte, vers *Versions) ([]byte, error) {
	f, err := modfile.Parse("go.mod", gomod, nil)
	if err != nil {
		return nil, err
	}
	declared := map[string]string{}
	for _, m := range vers.Modules {
		declared[m.Path] = m.Version
	}
	for _, r := range f.Require {
		v, ok := declared[r.Mod.Path]
		if !ok {
			if strings.HasPrefix(r.Mod.Path, RepoPath+"/") {
				return nil, fmt.Errorf("go.mod requires %s, which versions.yaml does not publish", r.Mod.Path)
			}
			continue
		}
		if err := f.AddRequire(r.Mod.Path, v); err != nil {
			return nil, err
		}
	}
	f.Cleanup()
	return f.Format()
}

// GoLine returns the go directive of a go.mod or go.work file.
func GoLine(data []byte) string {
	m := regexp.MustCompile(`(?m)^go (\S+)\s*$`).FindSubmatch(data)
	if m == nil {
		return ""
	}
	return string(m[1])
}

var unreleasedRE = regexp.MustCompile(`(?m)^## Unreleased[ \t]*\n`)

// OpenChangelogHeading puts "## version - date" under "## Unreleased", so the
// entries gathered so far belong to the release and a fresh, empty Unreleased
// section sits above it. A changelog already holding the heading is unchanged.
func OpenChangelogHeading(data []byte, version string, date time.Time) ([]byte, error) {
	heading := fmt.Sprintf("## %s - %s", version, date.Format("2006-01-02"))
	if bytes.Contains(data, []byte("## "+version+" ")) {
		return data, nil
	}
	loc := unreleasedRE.FindIndex(data)
	if loc == nil {
		return nil, fmt.Errorf("no \"## Unreleased\" heading")
	}
	var out bytes.Buffer
	out.Write(data[:loc[1]])
	out.WriteString("\n" + heading + "\n")
	out.Write(data[loc[1]:])
	return out.Bytes(), nil
}

// Unreleased returns the text of a changelog's Unreleased section.
func Unreleased(data []byte) string {
	loc := unreleasedRE.FindIndex(data)
	if loc == nil {
		return ""
	}
	rest := data[loc[1]:]
	if i := regexp.MustCompile(`(?m)^## `).FindIndex(rest); i != nil {
		rest = rest[:i[0]]
	}
	return string(rest)
}

// Git runs git in dir and returns its trimmed output.
func Git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// LatestTag returns the highest semantic-version tag of module m in the
// repository at root, and "" when the module has none.
func LatestTag(root string, m Module) (string, error) {
	out, err := Git(root, "tag", "--list", m.TagPrefix()+"v*")
	if err != nil {
		return "", err
	}
	best := ""
	for _, t := range strings.Fields(out) {
		v := strings.TrimPrefix(t, m.TagPrefix())
		if semver.IsValid(v) && (best == "" || semver.Compare(v, best) > 0) {
			best = v
		}
	}
	return best, nil
}

// ReleaseOptions configures Release.
type ReleaseOptions struct {
	Date   time.Time // the date written in CHANGELOG headings
	DryRun bool      // report what would change, write nothing
	Log    func(format string, args ...any)
}

// Release prepares and tags the release of every module whose declared
// version has no tag yet, in the repository at root: it rewrites sibling
// require lines in every module (published or not) to the declared versions,
// opens a CHANGELOG heading in each module being released, commits, and
// creates the tags <dir>/<version>. The working tree must be clean.
// It returns the tags it created.
func Release(root string, opts ReleaseOptions) ([]string, error) {
	logf := opts.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	vers, err := ReadVersions(filepath.Join(root, "versions.yaml"))
	if err != nil {
		return nil, err
	}
	if st, err := Git(root, "status", "--porcelain"); err != nil {
		return nil, err
	} else if st != "" && !opts.DryRun {
		return nil, fmt.Errorf("the working tree has uncommitted changes; commit or stash them before releasing:\n%s", st)
	}
	var toTag []Module
	for _, m := range vers.Modules {
		last, err := LatestTag(root, m)
		if err != nil {
			return nil, err
		}
		switch c := semver.Compare(m.Version, last); {
		case last == "" || c > 0:
			toTag = append(toTag, m)
		case c < 0:
			return nil, fmt.Errorf("versions.yaml declares %s %s, below its tag %s%s", m.Path, m.Version, m.TagPrefix(), last)
		}
	}
	if len(toTag) == 0 {
		logf("every module's declared version is tagged already; bump a version in versions.yaml first")
		return nil, nil
	}
	mods, err := ModuleDirs(root)
	if err != nil {
		return nil, err
	}
	for _, dir := range mods {
		p := filepath.Join(root, dir, "go.mod")
		old, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		neu, err := RewriteRequires(old, vers)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		if !bytes.Equal(old, neu) {
			logf("rewrite sibling requires in %s/go.mod", dir)
			if !opts.DryRun {
				if err := os.WriteFile(p, neu, 0o644); err != nil {
					return nil, err
				}
			}
		}
	}
	var tags []string
	for _, m := range toTag {
		p := filepath.Join(root, m.Dir(), "CHANGELOG.md")
		old, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("module %s needs a CHANGELOG.md with a \"## Unreleased\" section: %w", m.Path, err)
		}
		neu, err := OpenChangelogHeading(old, m.Version, opts.Date)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		logf("%s/CHANGELOG.md: ## %s - %s", m.Dir(), m.Version, opts.Date.Format("2006-01-02"))
		if !opts.DryRun {
			if err := os.WriteFile(p, neu, 0o644); err != nil {
				return nil, err
			}
		}
		tags = append(tags, m.TagPrefix()+m.Version)
	}
	if opts.DryRun {
		logf("would commit and tag: %s", strings.Join(tags, " "))
		return tags, nil
	}
	if _, err := Git(root, "add", "-A", "--", "."); err != nil {
		return nil, err
	}
	msg := "release: " + strings.Join(tags, " ")
	if st, _ := Git(root, "status", "--porcelain"); st != "" {
		if _, err := Git(root, "commit", "-q", "-m", msg); err != nil {
			return nil, err
		}
	}
	for _, t := range tags {
		if _, err := Git(root, "tag", "-a", t, "-m", t); err != nil {
			return nil, err
		}
		logf("tag %s", t)
	}
	return tags, nil
}

// ModuleDirs lists the directories (relative to root) of every go.mod in the
// repository outside testdata and node_modules, in sorted order.
func ModuleDirs(root string) ([]string, error) {
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules" || (d.Name() != "." && strings.HasPrefix(d.Name(), ".") && p != root)) {
			return filepath.SkipDir
		}
		if !d.IsDir() && d.Name() == "go.mod" {
			rel, _ := filepath.Rel(root, filepath.Dir(p))
			if rel != "." {
				dirs = append(dirs, filepath.ToSlash(rel))
			}
		}
		return nil
	})
	return dirs, err
}
