package main

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/tuning"
	"github.com/joshbot/joshbot/providers/providertest"
	"github.com/joshbot/joshbot/tools"
)

// slowTool fails the way a web tool does when its budget runs out.
type slowTool struct{ err error }

func (slowTool) Name() string                { return "web_search" }
func (slowTool) Description() string         { return "test" }
func (slowTool) Parameters() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (s slowTool) Execute(context.Context, json.RawMessage) (string, error) {
	return "", s.err
}

func TestTuningEndToEnd(t *testing.T) {
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

	// Three timeouts recorded through the wrapper earn one raise.
	tu, err := openTuner(cfg, home)
	if err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry()
	reg.Register(slowTool{err: errors.New("web_search: every search backend failed: exa: context deadline exceeded")})
	wrapped, err := tuningTools(reg, tu, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		wrapped.Execute(context.Background(), "web_search", nil)
	}
	// A cancelled turn says nothing about the budget.
	cctx, cancel := context.WithCancel(context.Background())
	cancel()
	wrapped.Execute(cctx, "web_search", nil)

	// The next start merges the raise onto the configured budget.
	loaded, _ := config.Load(cfgPath)
	if _, err := bumpBudgets(loaded, home, nil); err != nil {
		t.Fatal(err)
	}
	if got := loaded.Tools.Web.SearchTimeout.Std(); got.Seconds() != 30 {
		t.Fatalf("web_search budget %v, want 25s+5s", got)
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

	// Off means the overlay is ignored at start-up.
	off, _ := config.Load(cfgPath)
	off.Tuning.Enabled = false
	if tu, _ := bumpBudgets(off, home, nil); tu != nil || off.Tools.Web.SearchTimeout != 0 {
		t.Fatal("tuning applied while off")
	}
}
