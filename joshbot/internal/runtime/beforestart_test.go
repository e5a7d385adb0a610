package runtime_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
	"github.com/joshbot/joshbot/providers/providertest"
	"github.com/joshbot/joshbot/sandbox"
)

// TestBeforeStartRunsBeforeTheSandboxStarts checks that Load calls
// Options.BeforeStart once, before it makes the sandbox (which may start
// the probe's helper process), and not at all for a config it refuses.
func TestBeforeStartRunsBeforeTheSandboxStarts(t *testing.T) {
	srv := providertest.NewServer(t)
	cfg := config.Defaults()
	cfg.Agents.Defaults.Provider = "custom"
	cfg.Agents.Defaults.Model = "m"
	cfg.Providers["custom"] = config.Provider{APIBase: srv.URL()}
	cfg.Tools.ShellSandbox = "workspace"
	p := filepath.Join(t.TempDir(), "config.json")
	if err := config.Save(p, cfg); err != nil {
		t.Fatal(err)
	}
	var events []string
	opts := &runtime.Options{ConfigPath: p, Home: filepath.Dir(p),
		BeforeStart: func() { events = append(events, "before start") },
		NewSandbox: func(pol *sandbox.Policy, o *sandbox.Options) (*sandbox.Sandbox, error) {
			events = append(events, "sandbox")
			return sandbox.New(pol, o)
		}}
	// Without a sandbox on this system Load refuses the config after
	// trying: the order is what is checked.
	if rt, err := runtime.Load(context.Background(), opts); err == nil {
		rt.Close()
	}
	if len(events) != 2 || events[0] != "before start" || events[1] != "sandbox" {
		t.Fatalf("events %q, want BeforeStart once, then the sandbox", events)
	}

	events = nil
	bad := filepath.Join(t.TempDir(), "config.json")
	cfg.Agents.Defaults.Provider = "no-such-provider"
	if err := config.Save(bad, cfg); err == nil {
		opts.ConfigPath, opts.Home = bad, filepath.Dir(bad)
		if _, err := runtime.Load(context.Background(), opts); err == nil {
			t.Fatal("Load accepted an unknown provider")
		}
		if len(events) != 0 {
			t.Fatalf("refused config: events %q, want none", events)
		}
	}
}
