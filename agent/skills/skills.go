// Package skills finds, trusts and loads joshbot's skills: Markdown
// procedures in workspace/skills/<name>/SKILL.md with a frontmatter that
// names and describes them.
//
// Only a summary line per skill goes into the system prompt; the full text
// is loaded when the model asks for it through the skill tool, so skills
// cost context only when used.
//
// # Trust
//
// A workspace skill is inert until an operator approves it with
// `joshbot skills trust <name>`. Approval records a SHA-256 of the file's
// content in a trust store kept outside the workspace (the model can write
// the workspace, never the store), so editing an approved skill, or the
// model drafting a new one, leaves it untrusted until it is reviewed again.
// Skills bundled in the binary are trusted as part of the release.
package skills

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/joshbot/joshbot/memory/atomicfile"
)

//go:embed bundled
var bundledFS embed.FS

// Sources of a skill.
const (
	SourceBundled   = "bundled"
	SourceWorkspace = "workspace"
)

// maxSkillBytes caps one SKILL.md: a skill is a page of instructions, and
// the whole of it reaches the prompt when used.
const maxSkillBytes = 64 << 10

// Skill is one discovered skill.
type Skill struct {
	// Name is the directory name, which the frontmatter must repeat.
	Name string `json:"name"`
	// Description is the frontmatter's summary, a folded or literal
	// block's lines joined as YAML joins them, trimmed.
	Description string `json:"description"`
	// License is the frontmatter's license field, if any.
	License string `json:"license,omitempty"`
	// Compatibility is the frontmatter's compatibility note, if any.
	Compatibility string `json:"compatibility,omitempty"`
	// AllowedTools is the frontmatter's allowed-tools list, if any. It is
	// what the author declared; joshbot's own tool policy still applies.
	AllowedTools []string `json:"allowed_tools,omitempty"`
	// Metadata is the frontmatter's metadata map, if any.
	Metadata map[string]string `json:"metadata,omitempty"`
	// Source is SourceBundled or SourceWorkspace.
	Source string `json:"source"`
	// Path is the file, workspace-relative for workspace skills.
	Path string `json:"path"`
	// Hash is the SHA-256 of the file, hex.
	Hash string `json:"sha256"`
	// Trusted reports whether the skill may be used.
	Trusted bool `json:"trusted"`
	// Problem explains why a file is not a usable skill; empty when it is.
	Problem string `json:"problem,omitempty"`
}

// ErrUntrusted is returned by [Library.Load] for a skill no operator has
// approved in its current form.
var ErrUntrusted = errors.New("skill is not trusted")

// ErrNoSkill is returned for a name no skill has.
var ErrNoSkill = errors.New("no such skill")

// Library is the skill set of one workspace plus the bundled skills. It
// lists the skills directory and checks every file on every call, so an
// edit takes effect (and revokes trust) at once; what it read from a file
// that has not changed since is kept rather than read, hashed and parsed
// again (see cache). It is safe for concurrent use.
type Library struct {
	dir       string // workspace/skills
	trustPath string
	mu        sync.Mutex // serializes trust store writes
	cache     cache
}

// Open returns the library of workspace, with its trust store at
// trustPath, which must lie outside the workspace.
func Open(workspace, trustPath string) (*Library, error) {
	if workspace == "" || trustPath == "" {
		return nil, errors.New("skills: a workspace and a trust store path are required")
	}
	ws, err := filepath.Abs(workspace)
	if err != nil {
		return nil, err
	}
	tp, err := filepath.Abs(trustPath)
	if err != nil {
		return nil, err
	}
	if rel, err := filepath.Rel(ws, tp); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, errorf("skills: the trust store %s is inside the workspace, where the model could write it; keep it in the joshbot home", tp)
	}
	return &Library{dir: filepath.Join(ws, "skills"), trustPath: tp}, nil
}

// Dir is the directory workspace skills live in.
func (l *Library) Dir() string { return l.dir }

// ValidName reports whether name can be a skill name: 1 to 64 lowercase
// letters, digits and dashes, starting with a letter or digit.
func ValidName(name string) bool {
	if name == "" || len(name) > 64 || name[0] == '-' {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

func hashOf(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// describe builds a Skill from a file's bytes.
func describe(dirName, source, path string, data []byte) Skill {
	sk := Skill{Name: dirName, Source: source, Path: path, Hash: hashOf(data)}
	fm, body, err := parseFrontmatter(string(data))
	switch {
	case err != nil:
		sk.Problem = err.Error()
	case fm.Name != dirName:
		sk.Problem = fmt.Sprintf("frontmatter name %q does not match the directory %q", fm.Name, dirName)
	case fm.Description == "":
		sk.Problem = "frontmatter has no description"
	case strings.TrimSpace(body) == "":
		sk.Problem = "the skill has no instructions after the frontmatter"
	}
	sk.Description = fm.Description
	sk.License = fm.License
	sk.Compatibility = fm.Compatibility
	sk.AllowedTools = fm.AllowedTools
	sk.Metadata = fm.Metadata
	return sk
}

// bundledSkills returns the release's own skills, described once: they
// are compiled in, so every turn's index would otherwise hash and parse
// the same bytes again. Each call gets its own slice to append to.
func bundledSkills() []Skill {
	list := describeBundled()
	return append(make([]Skill, 0, len(list)+4), list...)
}

var (
	describeBundledOnce sync.Once
	describeBundledVal  []Skill
)

func describeBundled() []Skill {
	describeBundledOnce.Do(func() { describeBundledVal = buildDescribeBundled() })
	return describeBundledVal
}

func buildDescribeBundled() []Skill {
	var out []Skill
	ents, _ := fs.ReadDir(bundledFS, "bundled")
	for _, e := range ents {
		p := "bundled/" + e.Name() + "/SKILL.md"
		data, err := fs.ReadFile(bundledFS, p)
		if err != nil {
			continue
		}
		sk := describe(e.Name(), SourceBundled, p, data)
		sk.Trusted = sk.Problem == ""
		out = append(out, sk)
	}
	return out
}

// List returns every skill, bundled first, then workspace skills by name.
// A workspace skill with a bundled skill's name is listed with a problem:
// it cannot shadow the release's own.
func (l *Library) List() ([]Skill, error) {
	trust, err := l.readTrustCached()
	if err != nil {
		return nil, err
	}
	out := bundledSkills()
	bundled := make(map[string]bool, len(out))
	for _, sk := range out {
		bundled[sk.Name] = true
	}
	ents, err := os.ReadDir(l.dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, errorf("skills: %w", err)
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	live := map[string]bool{l.trustPath: true}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		name := e.Name()
		live[filepath.Join(l.dir, name, "SKILL.md")] = true
		sk, err := l.describeFile(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			sk = Skill{Name: name, Source: SourceWorkspace, Path: "skills/" + name + "/SKILL.md", Problem: err.Error()}
		}
		if !ValidName(name) && sk.Problem == "" {
			sk.Problem = "directory name is not a valid skill name (lowercase letters, digits and dashes)"
		}
		if bundled[name] && sk.Problem == "" {
			sk.Problem = "a bundled skill has this name; rename the workspace one"
		}
		sk.Trusted = sk.Problem == "" && sk.Hash != "" && trust[name] == sk.Hash
		out = append(out, sk)
	}
	l.cache.keep(live)
	return out, nil
}

// describeFile describes workspace skill name from its SKILL.md, from the
// cache when the file is the version described before.
func (l *Library) describeFile(name string) (Skill, error) {
	p, fi, err := l.checkFile(name)
	if err != nil {
		return Skill{}, err
	}
	e, key, cacheable := l.cache.lookup(p, fi)
	if e == nil {
		data, err := readLimited(p)
		if err != nil {
			return Skill{}, err
		}
		e = &cachedFile{key: key, skill: describe(name, SourceWorkspace, "skills/"+name+"/SKILL.md", data)}
		if cacheable {
			l.cache.store(p, e)
		}
	}
	// The caller may change what it gets; the entry stays as it was.
	sk := e.skill
	sk.AllowedTools = append([]string(nil), sk.AllowedTools...)
	sk.Metadata = maps.Clone(sk.Metadata)
	return sk, nil
}

// readFile reads a workspace SKILL.md, refusing symbolic links (a link
// could point the skill at any file on the machine) and oversized files.
func (l *Library) readFile(name string) ([]byte, error) {
	p, _, err := l.checkFile(name)
	if err != nil {
		return nil, err
	}
	return readLimited(p)
}

// checkFile returns the path and the Lstat of workspace skill name's
// SKILL.md, refusing a file that is not regular or a skill directory that
// is a symbolic link.
func (l *Library) checkFile(name string) (string, fs.FileInfo, error) {
	p := filepath.Join(l.dir, name, "SKILL.md")
	fi, err := os.Lstat(p)
	if err != nil {
		return "", nil, err
	}
	if !fi.Mode().IsRegular() {
		return "", nil, errorf("%s is not a regular file", p)
	}
	if dfi, err := os.Lstat(filepath.Join(l.dir, name)); err != nil || dfi.Mode()&fs.ModeSymlink != 0 {
		return "", nil, errorf("skills/%s is a symbolic link; skills must be real directories", name)
	}
	return p, fi, nil
}

// readLimited reads the SKILL.md at p, refusing one over maxSkillBytes.
func readLimited(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSkillBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxSkillBytes {
		return nil, errorf("SKILL.md is over %d KiB", maxSkillBytes>>10)
	}
	return data, nil
}

// Summaries returns one line per trusted skill for the system prompt.
// Errors reading the directory leave skills out rather than failing the
// turn.
func (l *Library) Summaries() []string {
	list, err := l.List()
	if err != nil {
		return nil
	}
	var out []string
	bundled := bundledSummaries()
	for _, sk := range list {
		if !sk.Trusted {
			continue
		}
		if line, ok := bundled[sk.Name]; ok && sk.Source == SourceBundled {
			out = append(out, line)
			continue
		}
		out = append(out, summary(&sk))
	}
	return out
}

// bundledSummaries maps each bundled skill's name to its summary line,
// made once: the lines are in every turn's prompt and never change. (A
// function with a sync.Once, not a sync.OnceValue variable, so the
// package runs no init code.)
func bundledSummaries() map[string]string {
	bundledSummariesOnce.Do(func() {
		m := make(map[string]string)
		for _, sk := range describeBundled() {
			m[sk.Name] = summary(&sk)
		}
		bundledSummariesVal = m
	})
	return bundledSummariesVal
}

var (
	bundledSummariesOnce sync.Once
	bundledSummariesVal  map[string]string
)

// summary is sk's line in the prompt's skill index.
func summary(sk *Skill) string { return sk.Name + ": " + oneLine(sk.Description) }

// oneLine flattens a description for the prompt. Angle brackets become
// look-alikes so a description cannot close the <skills> section the agent
// opened and have the rest read as the agent's own instructions.
func oneLine(s string) string {
	s = replaceAngles(s)
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 200 {
		return string(r[:200]) + "…"
	}
	return s
}

// Load returns the full text of a trusted skill. The file is hashed as it
// is read, so what is returned is exactly what was approved.
func (l *Library) Load(name string) (string, error) {
	list, err := l.List()
	if err != nil {
		return "", err
	}
	for _, sk := range list {
		if sk.Name != name {
			continue
		}
		if sk.Problem != "" {
			return "", errorf("skill %s is not usable: %s", name, sk.Problem)
		}
		var data []byte
		if sk.Source == SourceBundled {
			data, err = fs.ReadFile(bundledFS, sk.Path)
		} else {
			data, err = l.readFile(name)
		}
		if err != nil {
			return "", errorf("skill %s: %w", name, err)
		}
		if sk.Source == SourceWorkspace {
			trust, err := l.readTrust()
			if err != nil {
				return "", err
			}
			if trust[name] != hashOf(data) {
				return "", errorf("%w: %s is new or changed since it was approved; an operator must review it and run `joshbot skills trust %s`", ErrUntrusted, name, name)
			}
		}
		_, body, _ := parseFrontmatter(string(data))
		return strings.TrimSpace(body), nil
	}
	return "", errorf("%w %q", ErrNoSkill, name)
}

func (l *Library) readTrust() (map[string]string, error) {
	data, err := os.ReadFile(l.trustPath)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, errorf("skills trust store: %w", err)
	}
	m := map[string]string{}
	if err := json.Unmarshal(data, &m); err != nil {
		// Unreadable trust means nothing is trusted: fail closed.
		return nil, errorf("skills trust store %s does not parse (%v): fix or remove it; removing it untrusts every workspace skill", l.trustPath, err)
	}
	return m, nil
}

// Trust approves the current content of a workspace skill and returns the
// hash it was bound to.
func (l *Library) Trust(name string) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	list, err := l.List()
	if err != nil {
		return "", err
	}
	for _, sk := range list {
		if sk.Name != name {
			continue
		}
		if sk.Source == SourceBundled {
			return "", errorf("skill %s is bundled with joshbot and needs no trust", name)
		}
		if sk.Problem != "" {
			return "", errorf("skill %s cannot be trusted: %s", name, sk.Problem)
		}
		trust, err := l.readTrust()
		if err != nil {
			return "", err
		}
		trust[name] = sk.Hash
		return sk.Hash, l.writeTrust(trust)
	}
	return "", errorf("%w %q in %s", ErrNoSkill, name, l.dir)
}

// Untrust withdraws approval of a workspace skill.
func (l *Library) Untrust(name string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	trust, err := l.readTrust()
	if err != nil {
		return err
	}
	if _, ok := trust[name]; !ok {
		return errorf("skill %s is not trusted", name)
	}
	delete(trust, name)
	return l.writeTrust(trust)
}

func (l *Library) writeTrust(m map[string]string) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(l.trustPath, append(data, '\n'))
}

// Write creates or replaces workspace skill name with content, which must
// be a valid SKILL.md whose frontmatter names the same skill. What is
// written is untrusted until an operator approves it: a changed file no
// longer matches any recorded hash. It returns the workspace-relative path.
func (l *Library) Write(name, content string) (string, error) {
	if !ValidName(name) {
		return "", errorf("skill name %q: use 1 to 64 lowercase letters, digits and dashes", name)
	}
	if len(content) > maxSkillBytes {
		return "", errorf("skill %s is %d bytes, over the %d KiB limit", name, len(content), maxSkillBytes>>10)
	}
	if _, err := fs.Stat(bundledFS, "bundled/"+name); err == nil {
		return "", errorf("%s is a bundled skill and cannot be overwritten; choose another name", name)
	}
	if sk := describe(name, SourceWorkspace, "", []byte(content)); sk.Problem != "" {
		return "", errorf("skill %s: %s", name, sk.Problem)
	}
	dir := filepath.Join(l.dir, name)
	if fi, err := os.Lstat(dir); err == nil && !fi.IsDir() {
		return "", errorf("skills/%s exists and is not a directory", name)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", errorf("skill %s: %w", name, err)
	}
	if err := writeAtomic(filepath.Join(dir, "SKILL.md"), []byte(content)); err != nil {
		return "", errorf("skill %s: %w", name, err)
	}
	return "skills/" + name + "/SKILL.md", nil
}

// writeAtomic replaces path with data durably through package atomicfile
// (temporary file in the same directory, file sync, rename, directory
// sync), mode 0600. Temporary files an earlier write left behind when its
// process was killed are swept once they are a minute old.
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	atomicfile.Sweep(dir, time.Minute)
	return atomicfile.WriteFile(path, data, 0o600)
}

// replaceAngles turns angle brackets into look-alikes (see oneLine). It
// is a loop, not a strings.Replacer: building a Replacer per call cost
// more than the rest of the skill index, and one kept in a package
// variable is init code.
func replaceAngles(s string) string {
	if !strings.ContainsAny(s, "<>") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '<':
			b.WriteString("‹")
		case '>':
			b.WriteString("›")
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}
