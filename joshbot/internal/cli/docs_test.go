package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/providers/providertest"
)

// TestDocsCheckCommand drives `joshbot docs check` with the configured
// model; the checking itself is tested in internal/docscheck.
func TestDocsCheckCommand(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "README.md"), []byte("Run `joshbot start`.\n"), 0o644)
	srv.Enqueue(providertest.Text(`{"findings":[{"title":"t","doc":"README.md","evidence":["README.md:1"],"proposal":"p"},{"title":"u","evidence":[]}]}`))
	cfgPath := scriptedConfig(t, srv)
	r := runCLI(t, "", "--config", cfgPath, "docs", "check", "--root", root)
	if r.code != 0 || !strings.Contains(r.stdout, "1 findings (1 dropped for lack of evidence) written to ") || !strings.Contains(r.stdout, filepath.Join("workspace", "reports", "doc-drift-")) {
		t.Fatalf("%+v", r)
	}
	if got := srv.Requests()[0].Model; got != "scripted-model" {
		t.Fatalf("model %q", got)
	}
	r = runCLI(t, "", "--config", cfgPath, "docs", "check", "--root", filepath.Join(root, "README.md"))
	if r.code == 0 || !strings.Contains(r.stderr, "--root") {
		t.Fatalf("a file as --root: %+v", r)
	}
}

// TestDocsCheckRefusesCommandsUnattended: the checker has the shell, but
// with stdin not a terminal (as under cron) every command it tries is
// refused, and it is told why.
func TestDocsCheckRefusesCommandsUnattended(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "README.md"), []byte("Run `true`.\n"), 0o644)
	cfgPath := scriptedConfig(t, srv)
	// With the sandbox off (the default) there is no shell, and stderr
	// says why.
	srv.Enqueue(providertest.Text(`{"findings":[]}`))
	r := runCLI(t, "", "--config", cfgPath, "docs", "check", "--root", root)
	if r.code != 0 || !strings.Contains(r.stderr, "no verification commands: tools.shell_sandbox is \"off\"") {
		t.Fatalf("sandbox off: %+v", r)
	}
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Tools.ShellSandbox = "workspace"
	if err := config.Save(cfgPath, cfg); err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(
		providertest.ToolCalls(providertest.Call("shell", `{"command":"touch made-by-checker"}`)),
		providertest.Text(`{"findings":[{"title":"t","doc":"README.md","evidence":[{"command":"touch made-by-checker","output":"ok"}],"proposal":"p"}]}`),
	)
	r = runCLI(t, "", "--config", cfgPath, "docs", "check", "--root", root)
	if r.code != 0 || !strings.Contains(r.stdout, "0 findings (1 dropped for lack of evidence)") {
		t.Fatalf("%+v", r)
	}
	reqs := srv.Requests()[1:] // the first was the run without the sandbox
	var offered bool
	for _, d := range reqs[0].Tools {
		offered = offered || d.Function.Name == "shell"
	}
	msgs := reqs[1].Messages
	if !offered || !strings.Contains(msgs[len(msgs)-1].Content, "not run: approval was not given") {
		t.Fatalf("shell offered %v; its answer %q; stderr %q", offered, msgs[len(msgs)-1].Content, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(root, "made-by-checker")); err == nil {
		t.Fatal("a refused command ran")
	}
}
