package runtime

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/configedit"
	"github.com/joshbot/joshbot/sandbox"
	"github.com/joshbot/joshbot/tools"
)

type allowAll struct{ n int }

func (a *allowAll) Approve(context.Context, *sandbox.ApprovalRequest) (sandbox.Decision, error) {
	a.n++
	return sandbox.Allow, nil
}

// TestSubagentProfilesToolEditsTheConfigFile: the subagent_profiles tool,
// over the config tool's access, creates, edits and deletes
// agents.profiles entries in the real file, which the config's own
// validation guards; without a human nothing is written.
func TestSubagentProfilesToolEditsTheConfigFile(t *testing.T) {
	t.Setenv("MY_KEY_VAR", "k")
	path := filepath.Join(t.TempDir(), "config.json")
	c := config.Defaults()
	c.Agents.Defaults.Provider, c.Agents.Defaults.Model = "custom", "m"
	c.Providers["custom"] = config.Provider{APIKeyEnv: "MY_KEY_VAR", APIBase: "http://localhost:1/v1"}
	if err := config.Save(path, c); err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry()
	if err := tools.RegisterSubagentProfiles(reg, &configAccess{path: path}, nil, "agents.profiles"); err != nil {
		t.Fatal(err)
	}
	ap := &allowAll{}
	human := sandbox.WithApprover(context.Background(), ap)
	call := func(ctx context.Context, a map[string]any) (string, error) {
		b, _ := json.Marshal(a)
		return reg.Execute(ctx, "subagent_profiles", b)
	}
	load := func() *config.Config {
		t.Helper()
		got, err := config.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}

	if _, err := call(human, map[string]any{"operation": "create", "name": "coder", "description": "writes code", "model": "m-large", "tools": []string{"read_file"}}); err != nil {
		t.Fatal(err)
	}
	if p := load().Agents.Profiles["coder"]; p.Description != "writes code" || p.Model != "m-large" || len(p.Tools) != 1 {
		t.Fatalf("after create: %+v", p)
	}
	if out, err := call(context.Background(), map[string]any{"operation": "list"}); err != nil || out != "- coder: writes code\n" {
		t.Fatalf("list: %q, %v", out, err)
	}
	if _, err := call(human, map[string]any{"operation": "edit", "name": "coder", "max_iterations": 9}); err != nil {
		t.Fatal(err)
	}
	if p := load().Agents.Profiles["coder"]; p.MaxIterations != 9 || p.Model != "m-large" {
		t.Fatalf("after edit: %+v", p)
	}

	// The config's validation refuses a bad model id; the file is unchanged.
	before, _ := os.ReadFile(path)
	_, err := call(human, map[string]any{"operation": "edit", "name": "coder", "model": "two words"})
	if err == nil || !strings.Contains(err.Error(), "a model id has no spaces") {
		t.Fatalf("bad model: %v", err)
	}
	// Nobody to approve: refused, file unchanged.
	if _, err := call(context.Background(), map[string]any{"operation": "delete", "name": "coder"}); err == nil || !strings.Contains(err.Error(), "no human could approve") {
		t.Fatalf("unapproved delete: %v", err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Fatal("the file changed on a refused write")
	}

	if _, err := call(human, map[string]any{"operation": "delete", "name": "coder"}); err != nil {
		t.Fatal(err)
	}
	if _, ok := load().Agents.Profiles["coder"]; ok {
		t.Fatal("coder not deleted")
	}
	if ap.n != 4 {
		t.Fatalf("asked %d times, want once per approved-or-attempted write (4)", ap.n)
	}
	// The config tool's allowlist still holds for every other key.
	if _, err := configedit.ParseSafe("agents.defaults.model", "x"); err == nil || !strings.Contains(err.Error(), "agents.profiles.<name>") {
		t.Fatalf("allowlist: %v", err)
	}
}
