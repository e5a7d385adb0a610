package cli

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/joshbot/joshbot/joshbot/internal/runtime"
	"github.com/joshbot/joshbot/providers/providertest"
)

func TestProviderHealthReachesStatus(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	cfgPath := scriptedConfig(t, srv)
	home := filepath.Dir(cfgPath)

	// What a daemon's runtime records is what status, another process,
	// reads.
	rt, err := runtime.Load(context.Background(), &runtime.Options{ConfigPath: cfgPath, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	rt.Health.Failure("custom", errors.New("HTTP 503 from custom, key sk-abcdefghijklmnopqrstuvwxyz"), time.Hour)
	rt.StartHealthFile(context.Background())() // writes at start and at stop
	rt.Close()

	r := runCLI(t, "", "--config", cfgPath, "--output", "json", "status")
	var doc struct {
		Providers []struct {
			Provider     string `json:"provider"`
			Failures     int    `json:"failures"`
			CoolingUntil string `json:"cooling_until"`
			LastError    string `json:"last_error"`
		} `json:"providers"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	if len(doc.Providers) != 1 || doc.Providers[0].Provider != "custom" || doc.Providers[0].Failures != 1 || doc.Providers[0].CoolingUntil == "" {
		t.Fatalf("providers = %+v", doc.Providers)
	}
	if strings.Contains(r.stdout, "abcdefghijklmnop") {
		t.Fatalf("credential in the health report: %s", r.stdout)
	}
	if until, err := time.Parse(time.RFC3339, doc.Providers[0].CoolingUntil); err != nil || time.Until(until) < 50*time.Minute {
		t.Fatalf("cooling_until %q", doc.Providers[0].CoolingUntil)
	}
	text := runCLI(t, "", "--config", cfgPath, "status")
	if !strings.Contains(text.stdout, "Provider: custom: 1 failures, cooling down until") {
		t.Fatalf("text:\n%s", text.stdout)
	}
}
