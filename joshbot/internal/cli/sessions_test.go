package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/report"
	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/providers/providertest"
)

// stateDir writes a config with no provider at all (the session commands
// need none) and returns its path and the session store beside it.
func stateDir(t *testing.T) (string, *memory.Store) {
	t.Helper()
	clearProviderEnv(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "config.json")
	if err := config.Save(p, config.Defaults()); err != nil {
		t.Fatal(err)
	}
	store, err := memory.NewStore(filepath.Join(dir, "sessions"))
	if err != nil {
		t.Fatal(err)
	}
	return p, store
}

func seedSessions(t *testing.T, store *memory.Store) {
	t.Helper()
	ts := time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)
	if err := store.Save(&memory.Session{Key: "telegram:42", Messages: []memory.Message{
		{Role: "user", Content: "my key is sk-abcdefghijklmnopqrstuvwx, remember the Blue door", Time: ts},
		{Role: "assistant", ToolCalls: []memory.ToolCall{{ID: "c1", Name: "read_file", Arguments: "{\"path\":\"a```b\"}"}}, Time: ts.Add(time.Second)},
		{Role: "tool", ToolCallID: "c1", Name: "read_file", Content: "door colour: blue", Time: ts.Add(2 * time.Second)},
		{Role: "assistant", Content: "The door is blue.", Time: ts.Add(3 * time.Second)},
	}}); err != nil {
		t.Fatal(err)
	}
	if err := store.Save(&memory.Session{Key: "cli:default", Messages: []memory.Message{
		{Role: "user", Content: "paint the BLUE fence", Time: ts.Add(time.Hour)},
	}}); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-60 * 24 * time.Hour)
	p, _ := store.Path("telegram:42")
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
}

func TestSessionsListShowSearch(t *testing.T) {
	cfg, store := stateDir(t)
	if r := runCLI(t, "", "--config", cfg, "sessions", "list"); r.code != 0 || !strings.Contains(r.stdout, "No sessions yet") {
		t.Fatalf("empty list %+v", r)
	}
	seedSessions(t, store)
	r := runCLI(t, "", "--config", cfg, "sessions", "list")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) != 3 || !strings.HasPrefix(lines[1], "cli:default") || !strings.Contains(lines[2], "telegram:42") {
		t.Fatalf("list %+v", r)
	}
	r = runCLI(t, "", "--config", cfg, "sessions", "show", "telegram:42", "--last", "2")
	if r.code != 0 || strings.Count(r.stdout, "\n") != 2 || !strings.Contains(r.stdout, "tool (read_file): door colour") {
		t.Fatalf("show --last 2 %+v", r)
	}
	r = runCLI(t, "", "--config", cfg, "sessions", "show", "telegram:42")
	if strings.Contains(r.stdout, "sk-abcdefghijklmnop") || !strings.Contains(r.stdout, "[REDACTED]") {
		t.Errorf("show is not redacted:\n%s", r.stdout)
	}
	r = runCLI(t, "", "--config", cfg, "sessions", "search", "blue")
	out := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(out) != 4 || !strings.HasPrefix(out[0], "cli:default") || strings.Contains(r.stdout, "sk-abc") {
		t.Fatalf("search %+v", r)
	}
	if r := runCLI(t, "", "--config", cfg, "sessions", "search", "blue", "--limit", "1"); strings.Count(r.stdout, "\n") != 1 {
		t.Errorf("--limit 1: %q", r.stdout)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"sessions", "show", "telegram:999"}, "sessions list"},
		{[]string{"sessions", "show", "../etc"}, "invalid session key"},
		{[]string{"sessions", "show", "telegram:42", "--last", "-1"}, "--last"},
		{[]string{"sessions", "search", "x", "--limit", "0"}, "--limit"},
		{[]string{"sessions", "prune"}, "either a session id or --older-than"},
		{[]string{"sessions", "prune", "--older-than", "soon"}, "30d"},
	} {
		r := runCLI(t, "", append([]string{"--config", cfg}, tt.args...)...)
		if r.code == 0 || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%v: %+v, want %q", tt.args, r, tt.want)
		}
	}
}

func TestDestructiveCommandsNeedATerminalOrForce(t *testing.T) {
	cfg, store := stateDir(t)
	seedSessions(t, store)
	start := time.Now()
	for _, args := range [][]string{{"sessions", "prune", "telegram:42"}, {"sessions", "new", "cli:default"}, {"sessions", "prune", "--older-than", "30d"}} {
		r := runCLI(t, "y\n", append([]string{"--config", cfg}, args...)...)
		if r.code == 0 || !strings.Contains(r.stderr, "--force") {
			t.Errorf("%v without a terminal: %+v", args, r)
		}
	}
	if time.Since(start) > 5*time.Second {
		t.Error("the commands waited for input")
	}
	if keys, _ := store.Keys(); len(keys) != 2 {
		t.Fatalf("something was deleted: %v", keys)
	}
	r := runCLI(t, "", "--config", cfg, "sessions", "prune", "--older-than", "30d", "--force")
	if r.code != 0 || !strings.Contains(r.stdout, "Deleted telegram:42") {
		t.Fatalf("prune --older-than %+v", r)
	}
	if keys, _ := store.Keys(); len(keys) != 1 || keys[0] != "cli:default" {
		t.Fatalf("after prune: %v", keys)
	}
	r = runCLI(t, "", "--config", cfg, "sessions", "new", "cli:default", "--force")
	if r.code != 0 {
		t.Fatalf("new %+v", r)
	}
	if sess, _ := store.Load("cli:default"); len(sess.Messages) != 0 {
		t.Error("new kept the messages")
	}
	if hits, _ := store.Search("fence", nil); len(hits) != 1 || !hits[0].Archived {
		t.Errorf("new lost the messages instead of archiving them: %+v", hits)
	}
	r = runCLI(t, "", "--config", cfg, "sessions", "prune", "cli:default", "--force")
	if r.code != 0 {
		t.Fatalf("prune id %+v", r)
	}
	if hits, _ := store.Search("fence", &memory.SearchOptions{Keys: []string{"cli:default"}}); len(hits) != 0 {
		t.Error("prune left the archive")
	}
}

func TestExportIsRedactedDeterministicAndSideEffectFree(t *testing.T) {
	cfg, store := stateDir(t)
	seedSessions(t, store)
	p, _ := store.Path("telegram:42")
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("{\"role\":\"user\",\"content\":\"torn")
	f.Close()
	before, _ := os.ReadFile(p)

	out1, out2 := t.TempDir(), t.TempDir()
	for _, out := range []string{out1, out2} {
		if r := runCLI(t, "", "--config", cfg, "sessions", "export", "telegram:42", "--out", out); r.code != 0 {
			t.Fatalf("export %+v", r)
		}
	}
	for _, name := range []string{"telegram_42.md", "telegram_42.manifest.json"} {
		a, err1 := os.ReadFile(filepath.Join(out1, name))
		b, err2 := os.ReadFile(filepath.Join(out2, name))
		if err1 != nil || err2 != nil || string(a) != string(b) {
			t.Fatalf("%s differs between two exports (%v, %v)", name, err1, err2)
		}
		if strings.Contains(string(a), "sk-abcdefghijklmnop") {
			t.Errorf("%s holds the secret", name)
		}
		fi, _ := os.Stat(filepath.Join(out1, name))
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v", name, fi.Mode())
		}
	}
	if after, _ := os.ReadFile(p); string(after) != string(before) {
		t.Fatal("export repaired the session file")
	}
	if _, err := os.Stat(p + ".corrupt"); !os.IsNotExist(err) {
		t.Fatal("export quarantined a line")
	}
	var man report.ExportManifest
	data, _ := os.ReadFile(filepath.Join(out1, "telegram_42.manifest.json"))
	if err := json.Unmarshal(data, &man); err != nil {
		t.Fatal(err)
	}
	if man.Messages != 4 || man.Roles["assistant"] != 2 || man.ToolCalls["read_file"] != 1 || man.ToolResults["read_file"] != 1 ||
		man.UnreadableLines != 1 || man.Source.Size != int64(len(before)) || len(man.Source.SHA256) != 64 {
		t.Errorf("manifest %+v", man)
	}
	md, _ := os.ReadFile(filepath.Join(out1, "telegram_42.md"))
	if !strings.Contains(string(md), "````json\n{\"path\":\"a```b\"}\n````") {
		t.Errorf("tool arguments not fenced safely:\n%s", md)
	}
}

func TestAgentContinueResumesLatestSession(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	cfg := scriptedConfig(t, srv)
	if r := runCLI(t, "", "--config", cfg, "agent", "-c", "-m", "hi"); r.code == 0 || !strings.Contains(r.stderr, "no session yet") {
		t.Fatalf("continue with nothing: %+v", r)
	}
	store, _ := memory.NewStore(filepath.Join(filepath.Dir(cfg), "sessions"))
	seedSessions(t, store)
	srv.Enqueue(providertest.Text("welcome back"))
	r := runCLI(t, "", "--config", cfg, "agent", "--continue", "-m", "where were we?")
	if r.code != 0 || r.stdout != "welcome back\n" || !strings.Contains(r.stderr, "continuing cli:default") || !strings.Contains(r.stderr, "paint the BLUE fence") {
		t.Fatalf("continue %+v", r)
	}
	// The seeded question was never answered: the turn records it as
	// interrupted before its own exchange.
	if sess, _ := store.Load("cli:default"); len(sess.Messages) != 4 {
		t.Errorf("the turn did not go to the latest session: %d messages", len(sess.Messages))
	}
}

func TestMemoryStatusAndConsolidate(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	cfgPath := scriptedConfig(t, srv)
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Agents.Defaults.DreamMode = "record"
	cfg.Agents.Defaults.Learning = "on"
	if err := config.Save(cfgPath, cfg); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, "", "--config", cfgPath, "memory", "consolidate")
	if r.code != 0 || !strings.Contains(r.stdout, "Nothing to consolidate") {
		t.Fatalf("consolidate empty %+v", r)
	}
	// Each message is in the first person, so each is sent to learning
	// (the agent skips messages its heuristic finds nothing to learn in).
	for _, q := range []string{"how do I water tomato plants", "my tomato plants watering again", "my tomato plants leaves yellow"} {
		srv.Enqueue(providertest.Text("answer about "+q), providertest.Text(`{"facts":["The user grows tomato plants"]}`))
		if r := runCLI(t, "", "--config", cfgPath, "agent", "-m", q); r.code != 0 {
			t.Fatalf("turn %+v", r)
		}
	}
	// A single-person install: the CLI user is the owner, whose facts
	// are MEMORY.md's.
	facts, _ := os.ReadFile(filepath.Join(filepath.Dir(cfgPath), "workspace", memory.MemoryFileName))
	if strings.Count(string(facts), "tomato") != 1 {
		t.Errorf("learned facts:\n%s", facts)
	}
	r = runCLI(t, "", "--config", cfgPath, "memory", "status")
	if r.code != 0 || !strings.Contains(r.stdout, "Dream mode:              record") || !strings.Contains(r.stdout, "3 turns") {
		t.Fatalf("status %+v", r)
	}
	if !regexp.MustCompile(`cli:default\s+\S*MEMORY\.md \(shared\)`).MatchString(r.stdout) {
		t.Errorf("memory status does not show the CLI session's scope:\n%s", r.stdout)
	}
	r = runCLI(t, "", "--config", cfgPath, "memory", "consolidate")
	if r.code != 0 || !strings.Contains(r.stdout, "Consolidated 3 recorded turns into 1 insights") {
		t.Fatalf("consolidate %+v", r)
	}
	r = runCLI(t, "", "--config", cfgPath, "memory", "status")
	if !strings.Contains(r.stdout, "Insights:                1 from 1 runs") || !strings.Contains(r.stdout, "0 turns") {
		t.Errorf("status after %+v", r)
	}
}
