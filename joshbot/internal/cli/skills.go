package cli

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/joshbot/joshbot/agent/skills"
	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/output"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
)

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
	return skills.Open(ws, filepath.Join(home, runtime.SkillsTrustFile))
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
			format := a.format
			if asJSON {
				format = output.JSON
			}
			lib, err := a.skillLibrary()
			if err != nil {
				return a.failAs(format, err)
			}
			all, err := lib.List()
			if err != nil {
				return a.failAs(format, err)
			}
			doc := &output.SkillList{SchemaVersion: output.SchemaVersion, Skills: []output.SkillItem{}}
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
				doc.Skills = append(doc.Skills, output.SkillItem{
					Name: s.Name, Description: s.Description, Source: s.Source, Path: s.Path,
					SHA256: s.Hash, State: state, Trusted: s.Trusted, Problem: s.Problem,
				})
			}
			slices.SortFunc(doc.Skills, func(x, y output.SkillItem) int { return strings.Compare(x.Name, y.Name) })
			return output.Write(a.stdout, format, doc)
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print JSON (the same as --output json)")
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
