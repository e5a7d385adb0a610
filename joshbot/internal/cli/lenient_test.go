package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDaemonsLoadLeniently: gateway and serve start on defaults after an
// ordinary config mistake (and say so), never after a fatal one, and the
// interactive agent stays strict.
func TestDaemonsLoadLeniently(t *testing.T) {
	clearProviderEnv(t)
	for _, tt := range []struct {
		name, body string
		args       []string
		fellBack   bool
		errHas     string
	}{
		{name: "serve ordinary", args: []string{"serve", "--listen", "127.0.0.1:0"}, fellBack: true,
			body: `{"schema_version":1,"agents":{"defaults":{"max_tool_iterations":-1}}}`},
		{name: "gateway ordinary", args: []string{"gateway"}, fellBack: true,
			body: `{"schema_version":1,"agents":{"defaults":{"max_tool_iterations":-1}}}`},
		{name: "serve fatal", args: []string{"serve", "--listen", "127.0.0.1:0"}, errHas: "unit mistake",
			body: `{"schema_version":1,"agents":{"defaults":{"timeout":"5ms"}}}`},
		{name: "agent strict", args: []string{"agent", "-m", "hi"}, errHas: "max_tool_iterations",
			body: `{"schema_version":1,"agents":{"defaults":{"max_tool_iterations":-1}}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "config.json")
			if err := os.WriteFile(p, []byte(tt.body), 0o600); err != nil {
				t.Fatal(err)
			}
			// The defaults name no provider key here, so the daemons still
			// stop, but after the fallback and for that other reason.
			r := runCLI(t, "", append([]string{"--config", p}, tt.args...)...)
			said := strings.Contains(r.stderr, "Config unusable, using defaults")
			if said != tt.fellBack {
				t.Fatalf("fallback logged = %v, want %v\n%s", said, tt.fellBack, r.stderr)
			}
			if tt.errHas != "" && !strings.Contains(r.stderr, tt.errHas) {
				t.Fatalf("stderr lacks %q:\n%s", tt.errHas, r.stderr)
			}
			if tt.fellBack && strings.Contains(r.stderr, "joshbot: config") {
				t.Fatalf("the ordinary mistake still stopped it:\n%s", r.stderr)
			}
		})
	}
}
