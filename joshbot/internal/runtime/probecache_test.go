package runtime_test

import (
	"context"
	"os"
	"path/filepath"
	goruntime "runtime"
	"testing"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
	"github.com/joshbot/joshbot/providers/providertest"
	"github.com/joshbot/joshbot/sandbox"
)

// The shell's sandbox keeps its probe's report in the state directory's
// cache (0600), outside the build caches confined commands may write, and
// the next start reads it back: the same report, no probe process.
func TestSandboxProbeIsKeptInTheStateDirectory(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skip("the probe cache is Linux's")
	}
	if r := sandbox.Probe(); !r.Available {
		t.Skip("this system has no sandbox: ", r.Reason)
	}
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
	home := filepath.Dir(p)
	want := filepath.Join(home, "cache", runtime.ProbeCacheName)
	var reports []sandbox.Report
	opts := &runtime.Options{ConfigPath: p, Home: home,
		NewSandbox: func(pol *sandbox.Policy, o *sandbox.Options) (*sandbox.Sandbox, error) {
			if o == nil || o.ProbeCache != want {
				t.Errorf("sandbox options %+v, want ProbeCache %s", o, want)
			}
			sb, err := sandbox.New(pol, o)
			if err == nil {
				reports = append(reports, sb.Report())
			}
			return sb, err
		}}
	for i := range 2 {
		rt, err := runtime.Load(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		rt.Close()
		fi, err := os.Stat(want)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("start %d: probe cache %v, %v; want a 0600 file", i, fi, err)
		}
	}
	if len(reports) != 2 || reports[0] != reports[1] || !reports[0].Available {
		t.Fatalf("reports %+v, want the same working report twice", reports)
	}
}
