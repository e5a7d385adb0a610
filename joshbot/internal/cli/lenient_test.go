package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDaemonsLoadStrictly: gateway and serve refuse a config mistake
// with the error that names it, as agent does; none of them starts on
// defaults (which would drop the provider and channels the file sets).
func TestDaemonsLoadStrictly(t *testing.T) {
	clearProviderEnv(t)
	for _, tt := range []struct {
		name, body string
		args       []string
		errHas     string
	}{
		{name: "serve ordinary", args: []string{"serve", "--listen", "127.0.0.1:0"}, errHas: "max_tool_iterations",
			body: `{"schema_version":1,"agents":{"defaults":{"max_tool_iterations":-1}}}`},
		{name: "gateway ordinary", args: []string{"gateway"}, errHas: "max_tool_iterations",
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
			r := runCLI(t, "", append([]string{"--config", p}, tt.args...)...)
			if r.code == 0 || !strings.Contains(r.stderr, tt.errHas) {
				t.Fatalf("want a refusal naming %q: %+v", tt.errHas, r)
			}
			for _, bad := range []string{"using defaults", "no provider configured"} {
				if strings.Contains(r.stderr, bad) {
					t.Fatalf("misleading %q:\n%s", bad, r.stderr)
				}
			}
		})
	}
}
