package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	"github.com/joshbot/joshbot/joshbot/internal/config"
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

func TestTuningWrapperRecordsTimeoutsAndRaisesTheBudget(t *testing.T) {
	home := t.TempDir()
	cfgPath := filepath.Join(home, "config.json")
	cfg := config.Defaults()
	cfg.Tuning = config.Tuning{Enabled: true, Step: config.Duration(5e9), MaxBump: config.Duration(20e9)}
	if err := config.Save(cfgPath, cfg); err != nil {
		t.Fatal(err)
	}

	// Three timeouts recorded through the wrapper earn one raise.
	tu, err := OpenTuner(cfg, home)
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

	// Off means the overlay is ignored at start-up.
	off, _ := config.Load(cfgPath)
	off.Tuning.Enabled = false
	if tu, _ := bumpBudgets(off, home, nil); tu != nil || off.Tools.Web.SearchTimeout != 0 {
		t.Fatal("tuning applied while off")
	}
}
