package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/joshbot/joshbot/bus"
	"github.com/joshbot/joshbot/memory"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// builtinRegistry registers every builtin tool, with stand-ins for the
// stores they are given (none is called here).
func builtinRegistry(t *testing.T) *Registry {
	t.Helper()
	ws := t.TempDir()
	reg := NewRegistry()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(RegisterFilesystem(reg, ws))
	must(RegisterFilesystemTool(reg))
	must(RegisterCron(reg, nopCron{}, time.Now))
	must(RegisterConfig(reg, nopConfig{}, nil))
	must(RegisterSubagentProfiles(reg, nopConfig{}, nil, "agents.profiles"))
	lt, err := memory.OpenLongTerm(ws, nil)
	must(err)
	must(RegisterMemorySearch(reg, lt))
	store, err := memory.NewStore(t.TempDir())
	must(err)
	must(RegisterSessionSearch(reg, store, nil))
	must(RegisterMessaging(reg, nopOutbox{}, ws, nil))
	must(RegisterSkills(reg, nopSkills{}))
	must(RegisterSubagents(reg, &SubagentOptions{Profiles: map[string]string{"coder": "writes code"}}))
	sh, err := NewShell(&ShellOptions{Workspace: ws})
	must(err)
	t.Cleanup(func() { sh.Close() })
	must(reg.Register(sh))
	must(reg.Register(NewWebFetch(nil)))
	must(RegisterWebSearch(reg, &WebSearchOptions{Backends: []SearchBackend{NewDuckDuckGo(nil)}}))
	return reg
}

type nopCron struct{}

func (nopCron) Add(context.Context, CronJob) (CronJob, error)   { return CronJob{}, nil }
func (nopCron) List(context.Context, string) ([]CronJob, error) { return nil, nil }
func (nopCron) Remove(context.Context, string, string) error    { return nil }

type nopConfig struct{}

func (nopConfig) View(context.Context) (any, error)                   { return nil, nil }
func (nopConfig) Set(context.Context, string, string) (string, error) { return "", nil }

type nopOutbox struct{}

func (nopOutbox) PublishOutbound(context.Context, bus.Outbound) error { return nil }

type nopSkills struct{}

func (nopSkills) SkillList() ([]SkillInfo, error)           { return nil, nil }
func (nopSkills) LoadSkill(string) (string, error)          { return "", nil }
func (nopSkills) WriteSkill(string, string) (string, error) { return "", nil }

// TestBuiltinSchemasGolden pins the parameter schema every builtin tool
// offers the model, in canonical form (keys sorted, indented), one file per
// tool under testdata/schemas. Run with -update to record a deliberate
// change, and review the diff: it is what the model sees.
func TestBuiltinSchemasGolden(t *testing.T) {
	reg := builtinRegistry(t)
	dir := filepath.Join("testdata", "schemas")
	seen := map[string]bool{}
	for _, d := range reg.Definitions() {
		name := d.Function.Name
		seen[name+".json"] = true
		var v any
		if err := json.Unmarshal(d.Function.Parameters, &v); err != nil {
			t.Fatalf("%s: parameters are not JSON: %v", name, err)
		}
		got, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
		path := filepath.Join(dir, name+".json")
		if *update {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%s: %v (run go test -run TestBuiltinSchemasGolden -update)", name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: schema differs from %s (run with -update if deliberate):\n--- got\n%s\n--- want\n%s", name, path, got, want)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	for _, f := range files {
		if !seen[filepath.Base(f)] {
			t.Errorf("%s has no builtin tool any more; delete it", f)
		}
	}
}
