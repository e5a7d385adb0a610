package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/cron"
	"github.com/joshbot/joshbot/memory"
)

func (a *app) statusCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "Show the configuration in use, sessions and recent incidents",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfgPath, home, err := a.paths()
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "Config: %s\n", tildePath(cfgPath))
			cfg, err := config.Load(cfgPath)
			if err != nil {
				fmt.Fprintf(a.stdout, "Config problem: %s\n", err)
			} else {
				d := cfg.Agents.Defaults
				fmt.Fprintf(a.stdout, "Provider: %s\nModel: %s\n", d.Provider, d.Model)
				if ws, err := cfg.WorkspaceDir(home); err == nil {
					fmt.Fprintf(a.stdout, "Workspace: %s\n", tildePath(ws))
				}
				_, shell := shellConfinement(cfg)
				fmt.Fprintf(a.stdout, "Shell: %s\n", shell)
				timeout := d.Timeout.Std()
				if timeout <= 0 {
					timeout = agent.DefaultTimeout
				}
				line := fmt.Sprintf("Turn timeout: %s", timeout)
				if d.HealTimeouts == "bump" {
					if inc, err := a.openIncidents(home); err == nil {
						if h := agent.HealedTimeout(timeout, inc, time.Now()); h != timeout {
							line += fmt.Sprintf(" (next start: %s, raised by heal_timeouts)", h)
						}
					}
				}
				fmt.Fprintln(a.stdout, line)
			}
			// Only look: a status check must not create the state it reports on.
			if _, err := os.Stat(filepath.Join(home, "sessions")); err != nil {
				fmt.Fprintln(a.stdout, "Sessions: 0")
			} else if store, err := memory.NewStore(filepath.Join(home, "sessions")); err == nil {
				if keys, err := store.Keys(); err == nil {
					fmt.Fprintf(a.stdout, "Sessions: %d\n", len(keys))
				}
			}
			if store, err := cron.OpenStore(filepath.Join(home, cronFile)); err == nil {
				if jobs, _ := store.List(cmd.Context(), ""); len(jobs) > 0 {
					fmt.Fprintf(a.stdout, "Scheduled jobs: %d\n", len(jobs))
				}
			}
			if lib, err := a.skillLibrary(); err == nil {
				if all, err := lib.List(); err == nil {
					trusted := 0
					for _, s := range all {
						if s.Trusted {
							trusted++
						}
					}
					fmt.Fprintf(a.stdout, "Skills: %d usable, %d awaiting trust or broken\n", trusted, len(all)-trusted)
				}
			}
			inc, err := a.openIncidents(home)
			if err != nil {
				fmt.Fprintf(a.stdout, "Incidents: unreadable (%s)\n", err)
				return nil
			}
			if line := agent.IncidentLine(inc, time.Now().Add(-24*time.Hour)); line != "" {
				fmt.Fprintln(a.stdout, line)
			}
			return nil
		},
	}
}
