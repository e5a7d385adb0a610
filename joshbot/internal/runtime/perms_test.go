package runtime

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/joshbot/joshbot/joshbot/internal/config"
)

// TestStartTightensOwnerOnlyModes: opening the state (LoadStored, as
// every state command does, and Load, which shares the same step) puts
// the home, memory/, sessions/ and every file in them back to 0700/0600,
// and one warning names how many were loosened, with examples.
func TestStartTightensOwnerOnlyModes(t *testing.T) {
	home := t.TempDir()
	t.Setenv("JOSHBOT_HOME", home)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"sessions", "memory", "memory/sub"} {
		must(os.MkdirAll(filepath.Join(home, d), 0o755))
	}
	loose := map[string]os.FileMode{
		"":                     0o755,
		"sessions":             0o755,
		"memory":               0o777,
		"memory/sub":           0o755,
		"sessions/cli_x.jsonl": 0o644,
		"memory/MEMORY.md":     0o664,
		"memory/sub/notes.md":  0o644,
		"incidents.jsonl":      0o644,
	}
	for p, m := range loose {
		full := filepath.Join(home, p)
		if m&0o111 == 0 {
			must(os.WriteFile(full, []byte("x"), m))
		}
		must(os.Chmod(full, m))
	}
	// Already private: not counted.
	must(os.WriteFile(filepath.Join(home, "sessions", "tg_1.jsonl"), []byte("x"), 0o600))
	// A link is not followed: its target outside the home keeps its mode.
	outside := filepath.Join(t.TempDir(), "shared.txt")
	must(os.WriteFile(outside, []byte("x"), 0o644))
	must(os.Chmod(outside, 0o644))
	must(os.Symlink(outside, filepath.Join(home, "memory", "link.md")))

	var buf bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	t.Cleanup(func() { slog.SetDefault(prev) })
	st, err := LoadStored(filepath.Join(home, "config.json"), home)
	must(err)
	_ = st

	for p, m := range loose {
		want := os.FileMode(0o600)
		if m&0o111 != 0 {
			want = 0o700
		}
		fi, err := os.Stat(filepath.Join(home, p))
		must(err)
		if fi.Mode().Perm() != want {
			t.Errorf("%q is %v, want %v", p, fi.Mode().Perm(), want)
		}
	}
	if fi, _ := os.Stat(outside); fi.Mode().Perm() != 0o644 {
		t.Errorf("the link's target outside the home became %v", fi.Mode().Perm())
	}
	out := buf.String()
	if n := strings.Count(out, "level=WARN"); n != 1 {
		t.Fatalf("%d warnings, want one:\n%s", n, out)
	}
	if !strings.Contains(out, "count=8") || !strings.Contains(out, "incidents.jsonl") {
		t.Errorf("warning does not give the count and examples:\n%s", out)
	}

	// A second start finds nothing to tighten and says nothing.
	buf.Reset()
	_, err = LoadStored(filepath.Join(home, "config.json"), home)
	must(err)
	if strings.Contains(buf.String(), "level=WARN") {
		t.Errorf("second start warned:\n%s", buf.String())
	}
}

// TestLoadTightensOwnerOnlyModes: Load, what the agent, gateway and
// serve start with, re-applies the modes too.
func TestLoadTightensOwnerOnlyModes(t *testing.T) {
	t.Setenv("MY_KEY_VAR", "k")
	home := t.TempDir()
	cfgPath := filepath.Join(home, "config.json")
	c := config.Defaults()
	c.Agents.Defaults.Provider, c.Agents.Defaults.Model = "custom", "m"
	c.Providers["custom"] = config.Provider{APIKeyEnv: "MY_KEY_VAR", APIBase: "http://localhost:1/v1"}
	if err := config.Save(cfgPath, c); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(home, "sessions"), 0o700); err != nil {
		t.Fatal(err)
	}
	loose := filepath.Join(home, "sessions", "cli_x.jsonl")
	if err := os.WriteFile(loose, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(loose, 0o644); err != nil {
		t.Fatal(err)
	}
	rt, err := Load(context.Background(), &Options{ConfigPath: cfgPath, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	rt.Close()
	if fi, err := os.Stat(loose); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("session file after Load: %v, %v", fi.Mode().Perm(), err)
	}
}

// TestForeignConfigDirKeepsItsOtherFiles: a --config file in a directory
// that is not joshbot's home makes that directory the home of sessions/
// and memory/; those are tightened, the directory and the operator's
// other files in it are left as they are.
func TestForeignConfigDirKeepsItsOtherFiles(t *testing.T) {
	t.Setenv("JOSHBOT_HOME", t.TempDir())
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "deploy.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "sessions"), 0o755); err != nil {
		t.Fatal(err)
	}
	sess := filepath.Join(dir, "sessions", "cli_x.jsonl")
	if err := os.WriteFile(sess, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(sess, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadStored(filepath.Join(dir, "config.json"), dir); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]os.FileMode{dir: 0o755, script: 0o755, sess: 0o600} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: %v, want %v", p, fi.Mode().Perm(), want)
		}
	}
}
