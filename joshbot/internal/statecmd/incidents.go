package statecmd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/joshbot/internal/cmdutil"
	"github.com/joshbot/joshbot/joshbot/internal/output"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
)

// NewIncidentsCmd is `joshbot incidents` and its subcommands.
func NewIncidentsCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "incidents",
		Short: "Inspect turn failures: timeouts, provider failures, broken streams",
		Long: "Turn failures are recorded in incidents.jsonl under the joshbot home (owner-only, redacted).\n" +
			"list shows them, summary counts them by kind, clear empties the file.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newIncidentsListCmd(f, runIncidentsList), newIncidentsSummaryCmd(f, runIncidentsSummary),
		newIncidentsClearCmd(f, runIncidentsClear))
	return cmd
}

// incidentOptions is what an incidents command needs of the Factory.
type incidentOptions struct {
	IO     *cmdutil.Streams
	Home   func() (string, error)
	Logger func() *slog.Logger
	Now    func() time.Time
}

func incidents(f *cmdutil.Factory) incidentOptions {
	return incidentOptions{IO: f.IO, Home: f.Home, Logger: f.Logger, Now: f.Now}
}

// log opens the incident log of the home, without loading the rest of
// the runtime.
func (o *incidentOptions) log() (*agent.IncidentLog, error) {
	home, err := o.Home()
	if err != nil {
		return nil, err
	}
	return runtime.OpenIncidents(home, o.Logger())
}

// incidentsListOptions is what `incidents list` runs with.
type incidentsListOptions struct {
	incidentOptions
	// JSON is --json, the same as --output json.
	JSON bool
	// Limit shows only the newest N; 0 for all.
	Limit int
}

func newIncidentsListCmd(f *cmdutil.Factory, runF func(context.Context, *incidentsListOptions) error) *cobra.Command {
	opts := &incidentsListOptions{incidentOptions: incidents(f)}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List recorded incidents, newest last",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return runF(cmd.Context(), opts) },
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON (the same as --output json)")
	cmd.Flags().IntVarP(&opts.Limit, "limit", "n", 0, "show only the newest N")
	return cmd
}

func runIncidentsList(_ context.Context, opts *incidentsListOptions) error {
	format := opts.IO.Format
	if opts.JSON {
		format = output.JSON
	}
	log, err := opts.log()
	if err != nil {
		return cmdutil.Fail(opts.IO, format, err)
	}
	incs := log.List()
	if opts.Limit > 0 && len(incs) > opts.Limit {
		incs = incs[len(incs)-opts.Limit:]
	}
	doc := &output.IncidentList{SchemaVersion: output.SchemaVersion, Incidents: []output.IncidentItem{}}
	for _, inc := range incs {
		doc.Incidents = append(doc.Incidents, output.IncidentItem{
			Time: inc.Time, Kind: inc.Kind, Session: inc.Session, Provider: inc.Provider, Model: inc.Model,
			Iterations: inc.Iterations, ToolCalls: inc.ToolCalls, Error: inc.Error,
		})
	}
	return output.Write(opts.IO.Out, format, doc)
}

// incidentsSummaryOptions is what `incidents summary` runs with.
type incidentsSummaryOptions struct{ incidentOptions }

func newIncidentsSummaryCmd(f *cmdutil.Factory, runF func(context.Context, *incidentsSummaryOptions) error) *cobra.Command {
	opts := &incidentsSummaryOptions{incidents(f)}
	return &cobra.Command{
		Use:   "summary",
		Short: "Count incidents by kind, with the last 24 hours apart",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return runF(cmd.Context(), opts) },
	}
}

func runIncidentsSummary(_ context.Context, opts *incidentsSummaryOptions) error {
	log, err := opts.log()
	if err != nil {
		return cmdutil.Fail(opts.IO, opts.IO.Format, err)
	}
	const window = 24 * time.Hour
	recent := log.CountSince(opts.Now().Add(-window))
	doc := &output.IncidentSummary{SchemaVersion: output.SchemaVersion, WindowHours: int(window.Hours()), Kinds: []output.IncidentKind{}}
	for _, s := range agent.SummarizeIncidents(log.List()) {
		doc.Kinds = append(doc.Kinds, output.IncidentKind{Kind: s.Kind, Total: s.Count, Recent: recent[s.Kind], Last: s.Last})
	}
	return output.Write(opts.IO.Out, opts.IO.Format, doc)
}

// incidentsClearOptions is what `incidents clear` runs with.
type incidentsClearOptions struct {
	incidentOptions
	Force bool
}

func newIncidentsClearCmd(f *cmdutil.Factory, runF func(context.Context, *incidentsClearOptions) error) *cobra.Command {
	opts := &incidentsClearOptions{incidentOptions: incidents(f)}
	cmd := &cobra.Command{
		Use:   "clear",
		Short: "Empty the incident log (not an audit trail)",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return runF(cmd.Context(), opts) },
	}
	cmd.Flags().BoolVarP(&opts.Force, "force", "f", false, "do not ask")
	return cmd
}

func runIncidentsClear(_ context.Context, opts *incidentsClearOptions) error {
	log, err := opts.log()
	if err != nil {
		return err
	}
	if !opts.Force {
		if !cmdutil.IsTerminal(opts.IO.In) {
			return errors.New("incidents clear deletes every record: pass --force to run it without a terminal")
		}
		fmt.Fprintf(opts.IO.Out, "Delete %d incident records? [y/N] ", len(log.List()))
		line, _ := bufio.NewReader(opts.IO.In).ReadString('\n')
		if ans := strings.ToLower(strings.TrimSpace(line)); ans != "y" && ans != "yes" {
			fmt.Fprintln(opts.IO.Out, "Nothing deleted.")
			return nil
		}
	}
	if err := log.Clear(); err != nil {
		return err
	}
	fmt.Fprintln(opts.IO.Out, "Incident log cleared.")
	return nil
}
