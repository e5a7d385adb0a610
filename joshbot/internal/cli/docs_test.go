package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
