package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/agent/skills"
	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/tools"
)

// State files of the skills system, in the joshbot home: outside the
// workspace, which the model can write.
const (
	skillsTrustFile   = "skills.trust"
	skillPatternsFile = "skill_patterns.json"
)

// registerSkills opens the workspace's skills, registers the skill tool and
// gives the agent the skill summaries and the detection hook.
func (a *app) registerSkills(home, ws string, reg *tools.Registry, opts *agent.Options) error {
	lib, err := skills.Open(ws, filepath.Join(home, skillsTrustFile))
	if err != nil {
		return err
	}
	if err := tools.RegisterSkills(reg, lib); err != nil {
		return err
	}
	opts.Skills = lib
	opts.OnTurn = skills.NewDetector(lib, filepath.Join(home, skillPatternsFile), a.log).Observe
	return nil
}

// skillLibrary opens the skills of the configured workspace for the CLI.
func (a *app) skillLibrary() (*skills.Library, error) {
	cfgPath, home, err := a.paths()
	if err != nil {
		return nil, err
	}
	cfg, err := config.Load(cfgPath)
	if err != nil {
		return nil, err
	}
	ws, err := cfg.WorkspaceDir(home)
	if err != nil {
		return nil, err
	}
	return skills.Open(ws, filepath.Join(home, skillsTrustFile))
}

func (a *app) skillsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "skills",
		Short: "List skills and approve workspace skills",
		Long: "Skills are workspace/skills/<name>/SKILL.md files. A workspace skill is inert until you\n" +
			"approve it with `joshbot skills trust <name>`; the approval is bound to the file's content,\n" +
			"so any edit revokes it. Skills bundled with joshbot need no approval.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	var asJSON bool
	list := &cobra.Command{
		Use:   "list",
		Short: "List every skill with its trust state",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			lib, err := a.skillLibrary()
			if err != nil {
				return err
			}
			all, err := lib.List()
			if err != nil {
				return err
			}
			if asJSON || a.output == "json" {
				if all == nil {
					all = []skills.Skill{}
				}
				enc := json.NewEncoder(a.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(struct {
					SchemaVersion int            `json:"schema_version"`
					Skills        []skills.Skill `json:"skills"`
				}{1, all})
			}
			for _, s := range all {
				state := "trusted"
				switch {
				case s.Problem != "":
					state = "broken"
				case s.Source == skills.SourceBundled:
					state = "bundled"
				case !s.Trusted:
					state = "untrusted"
				}
				fmt.Fprintf(a.stdout, "%-24s %-9s %s\n", s.Name, state, s.Description)
				if s.Problem != "" {
					fmt.Fprintf(a.stdout, "%-24s           problem: %s\n", "", s.Problem)
				}
			}
			return nil
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	trust := &cobra.Command{
		Use:   "trust <name>",
		Short: "Approve a workspace skill as it is now (read it first)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			lib, err := a.skillLibrary()
			if err != nil {
				return err
			}
			h, err := lib.Trust(args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "Trusted %s (sha256 %s). Any edit revokes it.\n", args[0], h[:12])
			return nil
		},
	}
	untrust := &cobra.Command{
		Use:   "untrust <name>",
		Short: "Withdraw approval of a workspace skill",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			lib, err := a.skillLibrary()
			if err != nil {
				return err
			}
			if err := lib.Untrust(args[0]); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "%s is no longer trusted.\n", args[0])
			return nil
		},
	}
	cmd.AddCommand(list, trust, untrust)
	return cmd
}
