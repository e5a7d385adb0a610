package cli

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/joshbot/joshbot/joshbot/internal/cron"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
	"github.com/joshbot/joshbot/tools"
)

func (a *app) cronCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cron",
		Short: "Scheduled reminders and recurring jobs",
		Long: "The agent schedules jobs with its cron tool; they are kept in cron.json under the joshbot home.\n" +
			"A running `joshbot agent` conversation fires them; `joshbot cron run` fires what is due once\n" +
			"(for a system crontab).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List every scheduled job",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			store, err := a.cronStore()
			if err != nil {
				return err
			}
			jobs, _ := store.List(cmd.Context(), "")
			if len(jobs) == 0 {
				fmt.Fprintln(a.stdout, "No jobs scheduled.")
				return nil
			}
			for _, j := range jobs {
				every := "once"
				if j.Every > 0 {
					every = "every " + j.Every.String()
				}
				fmt.Fprintf(a.stdout, "%s  %s  %-10s  %-20s  %s\n", j.ID, j.Next.Local().Format(time.DateTime), every, j.SessionKey, j.Message)
			}
			return nil
		},
	}
	remove := &cobra.Command{
		Use:   "remove <id>",
		Short: "Remove a scheduled job",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			store, err := a.cronStore()
			if err != nil {
				return err
			}
			if err := store.Remove(cmd.Context(), "", args[0]); err != nil {
				if errors.Is(err, tools.ErrJobNotFound) {
					return fmt.Errorf("no job %q: see joshbot cron list", args[0])
				}
				return err
			}
			fmt.Fprintf(a.stdout, "Removed %s.\n", args[0])
			return nil
		},
	}
	run := &cobra.Command{
		Use:   "run",
		Short: "Fire every job that is due now, once",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rt, err := a.loadRuntime(cmd.Context(), nil)
			if err != nil {
				return err
			}
			s, err := rt.Scheduler()
			if err != nil {
				return err
			}
			n, err := s.Tick(cmd.Context())
			// The learning step after each fired turn runs in the
			// background; it must finish before the process exits.
			rt.Drain(cmd.Context())
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stderr, "%d job(s) fired.\n", n)
			return nil
		},
	}
	cmd.AddCommand(list, remove, run)
	return cmd
}

func (a *app) cronStore() (*cron.Store, error) {
	_, home, err := a.paths()
	if err != nil {
		return nil, err
	}
	return cron.OpenStore(filepath.Join(home, runtime.CronFile))
}
