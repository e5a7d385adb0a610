package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/output"
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

func openTuner(cfg *config.Config, home string) (*tuning.Tuner, error) {
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
	tu, err := openTuner(cfg, home)
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

func (a *app) tuningCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tuning",
		Short: "Timeout auto-tuning of the web tools (tuning.enabled): status and reset",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "status",
		Short: "Each tuned operation: configured budget, raise, effective budget, recorded outcomes",
		Args:  cobra.NoArgs,
		RunE:  func(*cobra.Command, []string) error { return a.tuningStatus() },
	}, &cobra.Command{
		Use:   "reset",
		Short: "Forget every raise and the events log; budgets go back to the config's",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			_, home, err := a.paths()
			if err != nil {
				return err
			}
			if err := tuning.Reset(home); err != nil {
				return err
			}
			fmt.Fprintln(a.stdout, "Tuning reset: every web tool is back at its configured timeout.")
			return nil
		},
	})
	return cmd
}

func (a *app) tuningStatus() error {
	st, err := a.loadStored()
	if err != nil {
		return a.fail(err)
	}
	tu, err := openTuner(st.cfg, st.home)
	if err != nil {
		return a.fail(err)
	}
	counts, err := tuning.CountEvents(st.home)
	if err != nil {
		return a.fail(err)
	}
	eff := st.cfg.Tuning.Effective()
	doc := &output.TuningStatus{
		SchemaVersion: output.SchemaVersion, Enabled: st.cfg.Tuning.Enabled,
		MaxBump: eff.MaxBump.Std().String(), Step: eff.Step.Std().String(), Cooldown: eff.Cooldown.Std().String(),
		Operations: []output.TunedOperation{},
	}
	names, states := tu.Snapshot()
	byName := map[string]tuning.State{}
	for i, n := range names {
		byName[n] = states[i]
	}
	for _, op := range tunedOps(&st.cfg.Tools.Web) {
		s := byName[op.name]
		bump := time.Duration(0)
		if st.cfg.Tuning.Enabled {
			bump = s.Bump()
		}
		item := output.TunedOperation{
			Operation: op.name, Configured: op.base().String(), Bump: s.Bump().String(), Effective: (op.base() + bump).String(),
			Timeouts: counts[op.name][0], Successes: counts[op.name][1],
		}
		if !s.ChangedAt.IsZero() {
			item.ChangedAt = s.ChangedAt.UTC().Format(time.RFC3339)
		}
		doc.Operations = append(doc.Operations, item)
	}
	return output.Write(a.stdout, a.format, doc)
}
