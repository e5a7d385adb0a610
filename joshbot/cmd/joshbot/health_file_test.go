package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/providers/providertest"
)

func TestProviderHealthReachesStatus(t *testing.T) {
	clearProviderEnv(t)
	srv := providertest.NewServer(t)
	cfgPath := scriptedConfig(t, srv)
	home := filepath.Dir(cfgPath)

	a := &app{log: slog.New(slog.NewTextHandler(io.Discard, nil)), health: providers.NewHealth(nil)}
	tick := make(chan time.Time)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); a.persistHealth(ctx, home, tick) }()

	a.health.Failure("custom", errors.New("HTTP 503 from custom, key sk-abcdefghijklmnopqrstuvwxyz"), time.Hour)
	tick <- time.Now() // the change is written on the next tick
	tick <- time.Now() // and this one has seen the first finish
	cancel()
	<-done

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
