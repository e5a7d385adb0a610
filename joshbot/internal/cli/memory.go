package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/joshbot/joshbot/joshbot/internal/report"
	"github.com/joshbot/joshbot/memory"
)

func (a *app) memoryCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "memory",
		Short: "Inspect long-term memory and run dream consolidation",
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "status",
		Short: "Show the memory files, each session's memory scope and the state of dream consolidation",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := a.loadStored()
			if err != nil {
				return err
			}
			keys, err := st.Sessions.Keys()
			if err != nil {
				return err
			}
			return report.WriteMemoryStatus(a.stdout, st.Memory, keys)
		},
	}, &cobra.Command{
		Use:   "consolidate",
		Short: "Cluster the recorded turns into insights now (dream stage 2)",
		Long: "Reads dream_raw.log, clusters each conversation's turns by TF-IDF cosine similarity,\n" +
			"appends the insights to dream_consolidated.jsonl and then clears the log. Safe to re-run\n" +
			"after a crash. Works whatever agents.defaults.dream_mode is, so recorded turns can be\n" +
			"consolidated after dream is switched off.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := a.loadStored()
			if err != nil {
				return err
			}
			start := time.Now()
			rep, err := st.Memory.ConsolidateDream()
			if err != nil {
				return err
			}
			if rep.Records == 0 && !rep.Resumed {
				msg := "Nothing to consolidate: no turns are recorded."
				if st.Memory.DreamMode() == memory.DreamOff {
					msg += " Turns are recorded only when agents.defaults.dream_mode is \"record\" or \"full\"."
				}
				fmt.Fprintln(a.stdout, msg)
				return nil
			}
			fmt.Fprintf(a.stdout, "Consolidated %d recorded turns into %d insights in %s", rep.Records, rep.Insights, time.Since(start).Round(time.Millisecond))
			if rep.Promoted > 0 {
				fmt.Fprintf(a.stdout, "; %d promoted to facts", rep.Promoted)
			}
			if rep.Resumed {
				fmt.Fprint(a.stdout, " (finished an interrupted run)")
			}
			if rep.Unreadable > 0 {
				fmt.Fprintf(a.stdout, "; %d unreadable records skipped (they remain in HISTORY.md)", rep.Unreadable)
			}
			fmt.Fprintln(a.stdout, ".")
			return nil
		},
	})
	return cmd
}
