package statecmd

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/joshbot/joshbot/joshbot/internal/cmdutil"
	"github.com/joshbot/joshbot/joshbot/internal/output"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
	"github.com/joshbot/joshbot/joshbot/internal/tuning"
)

// NewTuningCmd is `joshbot tuning` and its subcommands.
func NewTuningCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tuning",
		Short: "Timeout auto-tuning of the web tools (tuning.enabled): status and reset",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newTuningStatusCmd(f, runTuningStatus), newTuningResetCmd(f, runTuningReset))
	return cmd
}

// tuningStatusOptions is what `tuning status` runs with.
type tuningStatusOptions struct{ storedOptions }

func newTuningStatusCmd(f *cmdutil.Factory, runF func(context.Context, *tuningStatusOptions) error) *cobra.Command {
	opts := &tuningStatusOptions{stored(f)}
	return &cobra.Command{
		Use:   "status",
		Short: "Each tuned operation: configured budget, raise, effective budget, recorded outcomes",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return runF(cmd.Context(), opts) },
	}
}

func runTuningStatus(_ context.Context, opts *tuningStatusOptions) error {
	fail := func(err error) error { return cmdutil.Fail(opts.IO, opts.IO.Format, err) }
	st, err := opts.Stored()
	if err != nil {
		return fail(err)
	}
	tu, err := runtime.OpenTuner(st.Config, st.Home)
	if err != nil {
		return fail(err)
	}
	counts, err := tuning.CountEvents(st.Home)
	if err != nil {
		return fail(err)
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
	return output.Write(opts.IO.Out, opts.IO.Format, doc)
}

// tuningResetOptions is what `tuning reset` runs with.
type tuningResetOptions struct {
	IO   *cmdutil.Streams
	Home func() (string, error)
}

func newTuningResetCmd(f *cmdutil.Factory, runF func(context.Context, *tuningResetOptions) error) *cobra.Command {
	opts := &tuningResetOptions{IO: f.IO, Home: f.Home}
	return &cobra.Command{
		Use:   "reset",
		Short: "Forget every raise and the events log; budgets go back to the config's",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return runF(cmd.Context(), opts) },
	}
}

func runTuningReset(_ context.Context, opts *tuningResetOptions) error {
	home, err := opts.Home()
	if err != nil {
		return err
	}
	if err := tuning.Reset(home); err != nil {
		return err
	}
	fmt.Fprintln(opts.IO.Out, "Tuning reset: every web tool is back at its configured timeout.")
	return nil
}
