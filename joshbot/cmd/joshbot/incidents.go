package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/joshbot/joshbot/agent"
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
			log, err := a.incidentLog()
			if err != nil {
				return err
			}
			incs := log.List()
			if limit > 0 && len(incs) > limit {
				incs = incs[len(incs)-limit:]
			}
			if asJSON || a.output == "json" {
				enc := json.NewEncoder(a.stdout)
				enc.SetIndent("", "  ")
				if incs == nil {
					incs = []agent.Incident{}
				}
				return enc.Encode(incs)
			}
			if len(incs) == 0 {
				fmt.Fprintln(a.stdout, "No incidents recorded.")
				return nil
			}
			for _, inc := range incs {
				fmt.Fprintf(a.stdout, "%s  %-12s  %-20s  iterations=%d tool_calls=%d  %s\n",
					inc.Time.Local().Format(time.DateTime), inc.Kind, inc.Session, inc.Iterations, inc.ToolCalls, inc.Error)
			}
			return nil
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	list.Flags().IntVarP(&limit, "limit", "n", 0, "show only the newest N")
	summary := &cobra.Command{
		Use:   "summary",
		Short: "Count incidents by kind, with the last 24 hours apart",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			log, err := a.incidentLog()
			if err != nil {
				return err
			}
			all := log.List()
			if len(all) == 0 {
				fmt.Fprintln(a.stdout, "No incidents recorded.")
				return nil
			}
			recent := log.CountSince(time.Now().Add(-24 * time.Hour))
			for _, s := range agent.SummarizeIncidents(all) {
				fmt.Fprintf(a.stdout, "%-12s  %4d total  %4d in 24h  last %s\n", s.Kind, s.Count, recent[s.Kind], s.Last.Local().Format(time.DateTime))
			}
			return nil
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
	return a.openIncidents(home)
}
