package cli

import (
	"bufio"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/joshbot/internal/output"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
)

func (a *app) incidentsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "incidents",
		Short: "Inspect turn failures: timeouts, provider failures, broken streams",
		Long: "Turn failures are recorded in incidents.jsonl under the joshbot home (owner-only, redacted).\n" +
			"list shows them, summary counts them by kind, clear empties the file.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	var asJSON bool
	var limit int
	list := &cobra.Command{
		Use:   "list",
		Short: "List recorded incidents, newest last",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			format := a.format
			if asJSON {
				format = output.JSON
			}
			log, err := a.incidentLog()
			if err != nil {
				return a.failAs(format, err)
			}
			incs := log.List()
			if limit > 0 && len(incs) > limit {
				incs = incs[len(incs)-limit:]
			}
			doc := &output.IncidentList{SchemaVersion: output.SchemaVersion, Incidents: []output.IncidentItem{}}
			for _, inc := range incs {
				doc.Incidents = append(doc.Incidents, output.IncidentItem{
					Time: inc.Time, Kind: inc.Kind, Session: inc.Session, Provider: inc.Provider, Model: inc.Model,
					Iterations: inc.Iterations, ToolCalls: inc.ToolCalls, Error: inc.Error,
				})
			}
			return output.Write(a.stdout, format, doc)
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print JSON (the same as --output json)")
	list.Flags().IntVarP(&limit, "limit", "n", 0, "show only the newest N")
	summary := &cobra.Command{
		Use:   "summary",
		Short: "Count incidents by kind, with the last 24 hours apart",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			log, err := a.incidentLog()
			if err != nil {
				return a.fail(err)
			}
			const window = 24 * time.Hour
			recent := log.CountSince(time.Now().Add(-window))
			doc := &output.IncidentSummary{SchemaVersion: output.SchemaVersion, WindowHours: int(window.Hours()), Kinds: []output.IncidentKind{}}
			for _, s := range agent.SummarizeIncidents(log.List()) {
				doc.Kinds = append(doc.Kinds, output.IncidentKind{Kind: s.Kind, Total: s.Count, Recent: recent[s.Kind], Last: s.Last})
			}
			return output.Write(a.stdout, a.format, doc)
		},
	}
	var force bool
	clear := &cobra.Command{
		Use:   "clear",
		Short: "Empty the incident log (not an audit trail)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			log, err := a.incidentLog()
			if err != nil {
				return err
			}
			if !force {
				if !isTerminal(a.stdin) {
					return errors.New("incidents clear deletes every record: pass --force to run it without a terminal")
				}
				fmt.Fprintf(a.stdout, "Delete %d incident records? [y/N] ", len(log.List()))
				line, _ := bufio.NewReader(a.stdin).ReadString('\n')
				if ans := strings.ToLower(strings.TrimSpace(line)); ans != "y" && ans != "yes" {
					fmt.Fprintln(a.stdout, "Nothing deleted.")
					return nil
				}
			}
			if err := log.Clear(); err != nil {
				return err
			}
			fmt.Fprintln(a.stdout, "Incident log cleared.")
			return nil
		},
	}
	clear.Flags().BoolVarP(&force, "force", "f", false, "do not ask")
	cmd.AddCommand(list, summary, clear)
	return cmd
}

// incidentLog opens the incident log of the configured home, without
// loading the rest of the runtime.
func (a *app) incidentLog() (*agent.IncidentLog, error) {
	_, home, err := a.paths()
	if err != nil {
		return nil, err
	}
	return runtime.OpenIncidents(home, a.log)
}
