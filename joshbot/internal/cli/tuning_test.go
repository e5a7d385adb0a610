package cli

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
	"github.com/joshbot/joshbot/joshbot/internal/tuning"
	"github.com/joshbot/joshbot/providers/providertest"
)

// TestTuningStatusAndReset reads the raise three recorded timeouts earn
// through `tuning status`, and takes it back with `tuning reset`.
func TestTuningStatusAndReset(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	cfgPath := scriptedConfig(t, srv)
	home := filepath.Dir(cfgPath)
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Tuning = config.Tuning{Enabled: true, Step: config.Duration(5e9), MaxBump: config.Duration(20e9)}
	if err := config.Save(cfgPath, cfg); err != nil {
		t.Fatal(err)
	}
	tu, err := runtime.OpenTuner(cfg, home)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := tu.Record("web_search", tuning.Timeout); err != nil {
			t.Fatal(err)
		}
	}

	r := runCLI(t, "", "--config", cfgPath, "--output", "json", "tuning", "status")
	var doc struct {
		Enabled    bool `json:"enabled"`
		Operations []struct {
			Operation, Bump, Effective string
			Timeouts                   int
		} `json:"operations"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("%v\n%+v", err, r)
	}
	var found bool
	for _, o := range doc.Operations {
		if o.Operation == "web_search" {
			found = o.Bump == "5s" && o.Effective == "30s" && o.Timeouts == 3
		}
	}
	if !doc.Enabled || !found {
		t.Fatalf("status %s", r.stdout)
	}
	if r := runCLI(t, "", "--config", cfgPath, "tuning", "reset"); r.code != 0 {
		t.Fatalf("%+v", r)
	}
	again, _ := tuning.Open(home, nil)
	if again.Bump("web_search") != 0 {
		t.Fatal("reset kept the raise")
	}
}
