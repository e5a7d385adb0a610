package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/joshbot/joshbot/joshbot/internal/redact"
	"github.com/joshbot/joshbot/memory"
)

func (a *app) memoryCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "memory",
		Short: "Inspect long-term memory and run dream consolidation",
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "status",
		Short: "Show the memory files and the state of dream consolidation",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := a.loadStored()
			if err != nil {
				return err
			}
			return a.memoryStatus(st.Memory)
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

func (a *app) memoryStatus(lt *memory.LongTerm) error {
	ds, err := lt.DreamStatus()
	if err != nil {
		return err
	}
	size := func(p string) string {
		fi, err := os.Stat(p)
		if err != nil {
			return "absent"
		}
		return humanSize(fi.Size())
	}
	sessionFiles, _ := filepath.Glob(filepath.Join(lt.SessionDir(), "*.md"))
	w := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "Workspace:\t%s\n", redact.String(lt.Dir()))
	fmt.Fprintf(w, "MEMORY.md:\t%s (limit %s; the overflow is consolidated, never cut)\n", size(filepath.Join(lt.Dir(), memory.MemoryFileName)), humanSize(int64(lt.MaxBytes())))
	fmt.Fprintf(w, "Session memories:\t%d files in %s\n", len(sessionFiles), redact.String(lt.SessionDir()))
	fmt.Fprintf(w, "HISTORY.md:\t%s\n", size(lt.HistoryPath()))
	fmt.Fprintf(w, "Dream mode:\t%s\n", ds.Mode)
	pending := fmt.Sprintf("%d turns (%s)", ds.RawRecords, humanSize(ds.RawBytes))
	if ds.Interrupted {
		pending += ", including an interrupted run that the next consolidation finishes"
	}
	fmt.Fprintf(w, "Waiting to consolidate:\t%s\n", pending)
	fmt.Fprintf(w, "Insights:\t%d from %d runs\n", ds.Insights, ds.Batches)
	last := "never"
	if !ds.LastRun.IsZero() {
		last = ds.LastRun.UTC().Format(time.DateTime) + " UTC"
	}
	fmt.Fprintf(w, "Last consolidation:\t%s\n", last)
	return w.Flush()
}
