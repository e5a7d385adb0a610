package statecmd

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/joshbot/joshbot/joshbot/internal/cmdutil"
	"github.com/joshbot/joshbot/joshbot/internal/output"
	"github.com/joshbot/joshbot/joshbot/internal/report"
	"github.com/joshbot/joshbot/memory"
)

// NewMemoryCmd is `joshbot memory` and its subcommands.
func NewMemoryCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "memory",
		Short: "Inspect long-term memory and run dream consolidation",
	}
	cmd.AddCommand(newMemoryStatusCmd(f, runMemoryStatus), newMemoryConsolidateCmd(f, runMemoryConsolidate))
	return cmd
}

// memoryStatusOptions is what `memory status` runs with.
type memoryStatusOptions struct{ storedOptions }

func newMemoryStatusCmd(f *cmdutil.Factory, runF func(context.Context, *memoryStatusOptions) error) *cobra.Command {
	opts := &memoryStatusOptions{stored(f)}
	return &cobra.Command{
		Use:   "status",
		Short: "Show the memory files, each session's memory scope and the state of dream consolidation",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return runF(cmd.Context(), opts) },
	}
}

func runMemoryStatus(_ context.Context, opts *memoryStatusOptions) error {
	fail := func(err error) error { return cmdutil.Fail(opts.IO, opts.IO.Format, err) }
	st, err := opts.Stored()
	if err != nil {
		return fail(err)
	}
	keys, err := st.Sessions.Keys()
	if err != nil {
		return fail(err)
	}
	doc, err := report.MemoryStatus(st.Memory, keys)
	if err != nil {
		return fail(err)
	}
	return output.Write(opts.IO.Out, opts.IO.Format, doc)
}

// memoryConsolidateOptions is what `memory consolidate` runs with.
type memoryConsolidateOptions struct{ storedOptions }

func newMemoryConsolidateCmd(f *cmdutil.Factory, runF func(context.Context, *memoryConsolidateOptions) error) *cobra.Command {
	opts := &memoryConsolidateOptions{stored(f)}
	return &cobra.Command{
		Use:   "consolidate",
		Short: "Cluster the recorded turns into insights now (dream stage 2)",
		Long: "Reads dream_raw.log, clusters each conversation's turns by TF-IDF cosine similarity,\n" +
			"appends the insights to dream_consolidated.jsonl and then clears the log. Safe to re-run\n" +
			"after a crash. Works whatever agents.defaults.dream_mode is, so recorded turns can be\n" +
			"consolidated after dream is switched off.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runF(cmd.Context(), opts) },
	}
}

func runMemoryConsolidate(_ context.Context, opts *memoryConsolidateOptions) error {
	st, err := opts.Stored()
	if err != nil {
		return err
	}
	out := opts.IO.Out
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
		fmt.Fprintln(out, msg)
		return nil
	}
	fmt.Fprintf(out, "Consolidated %d recorded turns into %d insights in %s", rep.Records, rep.Insights, time.Since(start).Round(time.Millisecond))
	if rep.Promoted > 0 {
		fmt.Fprintf(out, "; %d promoted to facts", rep.Promoted)
	}
	if rep.Resumed {
		fmt.Fprint(out, " (finished an interrupted run)")
	}
	if rep.Unreadable > 0 {
		fmt.Fprintf(out, "; %d unreadable records skipped (they remain in HISTORY.md)", rep.Unreadable)
	}
	fmt.Fprintln(out, ".")
	return nil
}
