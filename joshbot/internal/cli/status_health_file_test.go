package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/joshbot/joshbot/joshbot/internal/runtime"
	"github.com/joshbot/joshbot/providers/providertest"
)

// TestStatusReadsHealthLeftByAStoppedGateway: with no gateway running
// and nothing loaded in this process, status shows the provider health a
// gateway persisted before it stopped, in JSON and in text; a cooldown
// that has already ended reads as ended, not as one still running.
func TestStatusReadsHealthLeftByAStoppedGateway(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	cfgPath := scriptedConfig(t, srv)
	home := filepath.Dir(cfgPath)
	future := time.Now().Add(time.Hour).UTC().Truncate(time.Second).Format(time.RFC3339)
	past := time.Now().Add(-time.Hour).UTC().Truncate(time.Second).Format(time.RFC3339)
	health := `{"providers":[` +
		`{"provider":"custom","failures":3,"cooling_until":"` + future + `","last_error":"HTTP 503"},` +
		`{"provider":"backup","failures":1,"cooling_until":"` + past + `","last_error":"timeout"}]}`
	if err := os.WriteFile(filepath.Join(home, runtime.HealthFile), []byte(health), 0o600); err != nil {
		t.Fatal(err)
	}

	r := runCLI(t, "", "--config", cfgPath, "--output", "json", "status")
	var doc struct {
		Providers []struct {
			Provider     string `json:"provider"`
			Failures     int    `json:"failures"`
			CoolingUntil string `json:"cooling_until"`
		} `json:"providers"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	if len(doc.Providers) != 2 || doc.Providers[0].Provider != "custom" || doc.Providers[0].Failures != 3 || doc.Providers[0].CoolingUntil != future {
		t.Fatalf("providers = %+v\n%s", doc.Providers, r.stdout)
	}

	text := runCLI(t, "", "--config", cfgPath, "status").stdout
	if !strings.Contains(text, "Provider: custom: 3 failures, cooling down until "+future+"; last: HTTP 503") {
		t.Fatalf("text:\n%s", text)
	}
	if !strings.Contains(text, "Provider: backup: 1 failures, cooldown ended "+past+"; last: timeout") {
		t.Fatalf("an ended cooldown is not shown as ended:\n%s", text)
	}
}
