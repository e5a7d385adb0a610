package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/joshbot/joshbot/joshbot/internal/output"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
	"github.com/joshbot/joshbot/joshbot/internal/tuning"
)

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
	tu, err := runtime.OpenTuner(st.Config, st.Home)
	if err != nil {
		return a.fail(err)
	}
	counts, err := tuning.CountEvents(st.Home)
	if err != nil {
		return a.fail(err)
	}
	eff := st.Config.Tuning.Effective()
	doc := &output.TuningStatus{
		SchemaVersion: output.SchemaVersion, Enabled: st.Config.Tuning.Enabled,
		MaxBump: eff.MaxBump.Std().String(), Step: eff.Step.Std().String(), Cooldown: eff.Cooldown.Std().String(),
		Operations: []output.TunedOperation{},
	}
	names, states := tu.Snapshot()
	byName := map[string]tuning.State{}
	for i, n := range names {
		byName[n] = states[i]
	}
	for _, op := range runtime.TunedOperations(&st.Config.Tools.Web) {
		s := byName[op.Name]
		bump := time.Duration(0)
		if st.Config.Tuning.Enabled {
			bump = s.Bump()
		}
		item := output.TunedOperation{
			Operation: op.Name, Configured: op.Base.String(), Bump: s.Bump().String(), Effective: (op.Base + bump).String(),
			Timeouts: counts[op.Name][0], Successes: counts[op.Name][1],
		}
		if !s.ChangedAt.IsZero() {
			item.ChangedAt = s.ChangedAt.UTC().Format(time.RFC3339)
		}
		doc.Operations = append(doc.Operations, item)
	}
	return output.Write(a.stdout, a.format, doc)
}
