package gateway

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/providers/providertest"
)

// clearProviderEnv hides any real credentials of the machine running the
// tests, so detection sees only what a test sets.
func clearProviderEnv(t testing.TB) {
	t.Helper()
	for _, s := range providers.Known() {
		if s.KeyEnv != "" {
			t.Setenv(s.KeyEnv, "")
		}
	}
	for _, e := range os.Environ() {
		if name, _, _ := strings.Cut(e, "="); strings.HasPrefix(name, "JOSHBOT_") {
			t.Setenv(name, "")
			os.Unsetenv(name)
		}
	}
}

// scriptedConfig writes a config that talks to srv and returns its path.
func scriptedConfig(t *testing.T, srv *providertest.Server) string {
	t.Helper()
	dir := t.TempDir()
	cfg := config.Defaults()
	cfg.Agents.Defaults.Provider = "custom"
	cfg.Agents.Defaults.Model = "scripted-model"
	cfg.Providers["custom"] = config.Provider{APIBase: srv.URL()}
	// Each test scripts exactly the replies of its turns; learning has
	// its own tests.
	cfg.Agents.Defaults.Learning = "off"
	p := filepath.Join(dir, "config.json")
	if err := config.Save(p, cfg); err != nil {
		t.Fatal(err)
	}
	return p
}
