package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/tuning"
	"github.com/joshbot/joshbot/tools"
)

// tunedOps are the operations whose budgets tuning adjusts, with the
// config field that holds each budget and the tools module's default for
// a zero value (tools.WebSearchOptions and tools.WebFetchOptions document
// them).
func tunedOps(w *config.Web) []tunedOp {
	return []tunedOp{
		{"web_code", &w.CodeTimeout, 20 * time.Second},
		{"web_company", &w.CompanyTimeout, 20 * time.Second},
		{"web_fetch", &w.FetchTimeout, 30 * time.Second},
		{"web_research", &w.ResearchTimeout, 45 * time.Second},
		{"web_search", &w.SearchTimeout, 25 * time.Second},
	}
}

type tunedOp struct {
	name   string
	budget *config.Duration
	def    time.Duration
}

func (o tunedOp) base() time.Duration {
	if *o.budget > 0 {
		return o.budget.Std()
	}
	return o.def
}

// OpenTuner opens the tuning state of home with cfg's tuning settings.
func OpenTuner(cfg *config.Config, home string) (*tuning.Tuner, error) {
	t := cfg.Tuning.Effective()
	return tuning.Open(home, &tuning.Options{MaxBump: t.MaxBump.Std(), Step: t.Step.Std(), Cooldown: t.Cooldown.Std()})
}

// bumpBudgets merges the tuning overlay onto the web tools' budgets in
// cfg, at start-up, when tuning.enabled is on; it returns the tuner that
// records this run's outcomes, or nil when tuning is off.
func bumpBudgets(cfg *config.Config, home string, log *slog.Logger) (*tuning.Tuner, error) {
	if !cfg.Tuning.Enabled {
		return nil, nil
	}
	tu, err := OpenTuner(cfg, home)
	if err != nil {
		return nil, err
	}
	for _, op := range tunedOps(&cfg.Tools.Web) {
		if b := tu.Bump(op.name); b > 0 {
			*op.budget = config.Duration(op.base() + b)
			if log != nil {
				log.Info("tuned timeout", "op", op.name, "budget", op.budget.Std(), "bump", b)
			}
		}
	}
	return tu, nil
}

// tuningTools wraps the tuned tools so each call records a timeout or a
// success. With a nil tuner the registry is returned as it is.
func tuningTools(reg *tools.Registry, tu *tuning.Tuner, log *slog.Logger) (*tools.Registry, error) {
	if tu == nil {
		return reg, nil
	}
	tuned := map[string]bool{}
	for _, op := range tunedOps(&config.Web{}) {
		tuned[op.name] = true
	}
	out := tools.NewRegistry()
	for _, name := range reg.Names() {
		t, _ := reg.Get(name)
		if tuned[name] {
			t = &recordingTool{Tool: t, tuner: tu, log: log}
		}
		if err := out.Register(t); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// recordingTool reports each call's outcome to the tuner. A call stopped
// because the turn ended (cancelled, out of time) says nothing about the
// operation and is not recorded.
type recordingTool struct {
	tools.Tool
	tuner *tuning.Tuner
	log   *slog.Logger
}

func (t *recordingTool) Execute(ctx context.Context, args json.RawMessage) (string, error) {
	res, err := t.Tool.Execute(ctx, args)
	outcome := tuning.Success
	switch {
	case ctx.Err() != nil:
		return res, err
	case err != nil && (errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "deadline exceeded") || strings.Contains(err.Error(), "Client.Timeout")):
		outcome = tuning.Timeout
	case err != nil:
		return res, err // other failures are not about the budget
	}
	if rerr := t.tuner.Record(t.Name(), outcome); rerr != nil && t.log != nil {
		t.log.Warn("tuning event not recorded", "op", t.Name(), "err", rerr)
	}
	return res, err
}

// TunedOperation is an operation whose budget tuning adjusts.
type TunedOperation struct {
	// Name is the operation's (and its tool's) name.
	Name string
	// Base is the budget the config sets, or the tool's default.
	Base time.Duration
}

// TunedOperations lists the operations tuning adjusts with their budgets
// in w, by name.
func TunedOperations(w *config.Web) []TunedOperation {
	ops := tunedOps(w)
	out := make([]TunedOperation, len(ops))
	for i, op := range ops {
		out[i] = TunedOperation{Name: op.name, Base: op.base()}
	}
	return out
}
