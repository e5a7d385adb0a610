package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/joshbot/joshbot/providers/providertest"
)

// TestSkillsInAgentSkillsFormatLoadThroughTheCLI puts the three skills
// written in the public Agent Skills format (agent/skills/testdata/
// agentskills: folded and literal descriptions, allowed-tools lists, metadata
// maps) in a workspace and runs the binary's own commands on them: `skills
// list --json` shows each untrusted with no problem and its whole
// description, `skills trust` approves each, and the next turn's system
// prompt carries their one-line summaries.
func TestSkillsInAgentSkillsFormatLoadThroughTheCLI(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	cfgPath := scriptedConfig(t, srv)
	ws := filepath.Join(filepath.Dir(cfgPath), "workspace")
	fixtures := filepath.Join("..", "..", "..", "agent", "skills", "testdata", "agentskills")
	want := map[string]string{
		"pdf-forms":  "Fill in, inspect and flatten PDF forms. Use when the user hands over a PDF",
		"changelog":  "Write or update a CHANGELOG.md entry in the Keep a Changelog style",
		"git-bisect": "Find the commit that introduced a regression with git bisect.\nUse when a test passed",
	}
	for name := range want {
		data, err := os.ReadFile(filepath.Join(fixtures, name, "SKILL.md"))
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(ws, "skills", name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := runCLI(t, "", "--config", cfgPath, "skills", "list", "--json")
	var doc struct {
		Skills []struct {
			Name        string `json:"name"`
			Description string `json:"description"`
			State       string `json:"state"`
			Problem     string `json:"problem"`
		} `json:"skills"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("skills list --json: %v\n%+v", err, r)
	}
	seen := 0
	for _, s := range doc.Skills {
		prefix, ok := want[s.Name]
		if !ok {
			continue
		}
		seen++
		if s.State != "untrusted" || s.Problem != "" || !strings.HasPrefix(s.Description, prefix) {
			t.Errorf("%s: state %q problem %q description %q", s.Name, s.State, s.Problem, s.Description)
		}
	}
	if seen != len(want) {
		t.Fatalf("skills list shows %d of the %d Agent Skills fixtures:\n%s", seen, len(want), r.stdout)
	}
	for name := range want {
		if r := runCLI(t, "", "--config", cfgPath, "skills", "trust", name); r.code != 0 {
			t.Fatalf("trust %s: %+v", name, r)
		}
	}
	srv.Enqueue(providertest.Text("ok"))
	runCLI(t, "", "--config", cfgPath, "agent", "-m", "which skills do you have?")
	sys := srv.Requests()[0].Messages[0].Content
	for _, line := range []string{
		"pdf-forms: Fill in, inspect and flatten PDF forms. Use when the user hands over a PDF with form fields",
		"changelog: Write or update a CHANGELOG.md entry",
		"git-bisect: Find the commit that introduced a regression with git bisect. Use when a test passed",
	} {
		if !strings.Contains(sys, line) {
			t.Errorf("the system prompt lacks %q:\n%s", line, sys)
		}
	}
}
