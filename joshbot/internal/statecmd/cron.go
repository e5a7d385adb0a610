package statecmd

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/joshbot/joshbot/joshbot/internal/cmdutil"
	"github.com/joshbot/joshbot/joshbot/internal/cron"
	"github.com/joshbot/joshbot/joshbot/internal/output"
	"github.com/joshbot/joshbot/joshbot/internal/redact"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
	"github.com/joshbot/joshbot/tools"
)

// NewCronCmd is `joshbot cron` and its subcommands.
func NewCronCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cron",
		Short: "Scheduled reminders and recurring jobs",
		Long: "The agent schedules jobs with its cron tool; they are kept in cron.json under the joshbot home.\n" +
			"A running `joshbot agent` conversation fires them; `joshbot cron run` fires what is due once\n" +
			"(for a system crontab).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newCronListCmd(f, runCronList), newCronRemoveCmd(f, runCronRemove), newCronRunCmd(f, runCronRun))
	return cmd
}

// cronOptions is what a cron command needs of the Factory.
type cronOptions struct {
	IO   *cmdutil.Streams
	Home func() (string, error)
}

// store opens the job store of the home.
func (o *cronOptions) store() (*cron.Store, error) {
	home, err := o.Home()
	if err != nil {
		return nil, err
	}
	return cron.OpenStore(filepath.Join(home, runtime.CronFile))
}

// cronListOptions is what `cron list` runs with.
type cronListOptions struct{ cronOptions }

func newCronListCmd(f *cmdutil.Factory, runF func(context.Context, *cronListOptions) error) *cobra.Command {
	opts := &cronListOptions{cronOptions{IO: f.IO, Home: f.Home}}
	return &cobra.Command{
		Use:   "list",
		Short: "List every scheduled job",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return runF(cmd.Context(), opts) },
	}
}

func runCronList(ctx context.Context, opts *cronListOptions) error {
	store, err := opts.store()
	if err != nil {
		return cmdutil.Fail(opts.IO, opts.IO.Format, err)
	}
	jobs, _ := store.List(ctx, "")
	doc := &output.CronList{SchemaVersion: output.SchemaVersion, Jobs: []output.CronItem{}}
	for _, j := range jobs {
		item := output.CronItem{ID: j.ID, Next: j.Next.UTC(), Session: j.SessionKey, Message: redact.String(j.Message)}
		if j.Every > 0 {
			item.Every = j.Every.String()
		}
		doc.Jobs = append(doc.Jobs, item)
	}
	return output.Write(opts.IO.Out, opts.IO.Format, doc)
}

// cronRemoveOptions is what `cron remove` runs with.
type cronRemoveOptions struct {
	cronOptions
	ID string
}

func newCronRemoveCmd(f *cmdutil.Factory, runF func(context.Context, *cronRemoveOptions) error) *cobra.Command {
	opts := &cronRemoveOptions{cronOptions: cronOptions{IO: f.IO, Home: f.Home}}
	return &cobra.Command{
		Use:   "remove <id>",
		Short: "Remove a scheduled job",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = args[0]
			return runF(cmd.Context(), opts)
		},
	}
}

func runCronRemove(ctx context.Context, opts *cronRemoveOptions) error {
	store, err := opts.store()
	if err != nil {
		return err
	}
	if err := store.Remove(ctx, "", opts.ID); err != nil {
		if errors.Is(err, tools.ErrJobNotFound) {
			return errorf("no job %q: see joshbot cron list", opts.ID)
		}
		return err
	}
	fmt.Fprintf(opts.IO.Out, "Removed %s.\n", opts.ID)
	return nil
}

// cronRunOptions is what `cron run` runs with.
type cronRunOptions struct {
	IO          *cmdutil.Streams
	LoadRuntime func(context.Context, string, *runtime.Options) (*runtime.Runtime, error)
}

func newCronRunCmd(f *cmdutil.Factory, runF func(context.Context, *cronRunOptions) error) *cobra.Command {
	opts := &cronRunOptions{IO: f.IO, LoadRuntime: f.LoadRuntime}
	return &cobra.Command{
		Use:   "run",
		Short: "Fire every job that is due now, once",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return runF(cmd.Context(), opts) },
	}
}

func runCronRun(ctx context.Context, opts *cronRunOptions) error {
	rt, err := opts.LoadRuntime(ctx, "", nil)
	if err != nil {
		return err
	}
	s, err := rt.Scheduler()
	if err != nil {
		return err
	}
	n, err := s.Tick(ctx)
	// The learning step after each fired turn runs in the background; it
	// must finish before the process exits.
	rt.Drain(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Err, "%d job(s) fired.\n", n)
	return nil
}
