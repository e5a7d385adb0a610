package skills_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/joshbot/joshbot/agent/skills"
)

// TestAgentSkillsFormatFixturesLoad copies three skills written in the
// public Agent Skills format (testdata/agentskills) into a workspace and
// checks every frontmatter field as the library reports it: folded (>, >-)
// and literal (|) descriptions, allowed-tools as a block list, a flow list
// and a space-separated string, and metadata maps. Each also loads its
// body once trusted.
func TestAgentSkillsFormatFixturesLoad(t *testing.T) {
	want := map[string]skills.Skill{
		"pdf-forms": {
			Description:  "Fill in, inspect and flatten PDF forms. Use when the user hands over a PDF with form fields (an application, a tax form, a contract) and wants it completed from their notes.",
			License:      "Apache-2.0",
			AllowedTools: []string{"Bash(python3:*)", "Read", "Write"},
			Metadata:     map[string]string{"author": "example-org", "version": "1.2", "category": "documents"},
		},
		"changelog": {
			Description:   "Write or update a CHANGELOG.md entry in the Keep a Changelog style from the commits since the last release tag.",
			License:       "MIT",
			Compatibility: "Needs git on the PATH.",
			AllowedTools:  []string{"Bash(git log:*)", "Bash(git describe:*)", "Read", "Edit"},
			Metadata:      map[string]string{"author": "Jane Doe", "source": "https://example.com/skills/changelog", "keep-a-changelog": "1.1.0"},
		},
		"git-bisect": {
			Description:  "Find the commit that introduced a regression with git bisect.\nUse when a test passed at some older commit and fails now.",
			License:      "BSD-3-Clause",
			AllowedTools: []string{"Bash(git bisect:*)", "Bash(go test:*)", "Read"},
			Metadata:     map[string]string{"author": "ops team", "tags": "git, debugging", "min-git": "2.30"},
		},
	}
	ws := t.TempDir()
	for name := range want {
		data, err := os.ReadFile(filepath.Join("testdata", "agentskills", name, "SKILL.md"))
		if err != nil {
			t.Fatal(err)
		}
		writeSkill(t, ws, name, string(data))
	}
	lib, err := skills.Open(ws, filepath.Join(t.TempDir(), "trust.json"))
	if err != nil {
		t.Fatal(err)
	}
	list, err := lib.List()
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, got := range list {
		w, ok := want[got.Name]
		if !ok {
			continue
		}
		found++
		if got.Problem != "" {
			t.Errorf("%s: problem %q", got.Name, got.Problem)
			continue
		}
		if got.Source != skills.SourceWorkspace || got.Path != filepath.Join("skills", got.Name, "SKILL.md") || len(got.Hash) != 64 {
			t.Errorf("%s: source %q path %q hash %q", got.Name, got.Source, got.Path, got.Hash)
		}
		if got.Description != w.Description {
			t.Errorf("%s: description\n got %q\nwant %q", got.Name, got.Description, w.Description)
		}
		if got.License != w.License || got.Compatibility != w.Compatibility {
			t.Errorf("%s: license %q compatibility %q, want %q %q", got.Name, got.License, got.Compatibility, w.License, w.Compatibility)
		}
		if !reflect.DeepEqual(got.AllowedTools, w.AllowedTools) {
			t.Errorf("%s: allowed-tools %q, want %q", got.Name, got.AllowedTools, w.AllowedTools)
		}
		if !reflect.DeepEqual(got.Metadata, w.Metadata) {
			t.Errorf("%s: metadata %q, want %q", got.Name, got.Metadata, w.Metadata)
		}
		if _, err := lib.Trust(got.Name); err != nil {
			t.Fatal(err)
		}
		body, err := lib.Load(got.Name)
		if err != nil || len(body) < 100 || body[0] != '#' {
			t.Errorf("%s: Load = %.40q, %v", got.Name, body, err)
		}
	}
	if found != len(want) {
		t.Fatalf("listed %d of the %d fixtures: %+v", found, len(want), list)
	}
}
