package statecmd

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"

	"github.com/spf13/cobra"

	"github.com/joshbot/joshbot/agent/skills"
	"github.com/joshbot/joshbot/joshbot/internal/cmdutil"
	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/output"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
)

// SkillLibrary opens the skills of the workspace that the config at the
// Factory's paths names.
func SkillLibrary(paths func() (cfgPath, home string, err error)) (*skills.Library, error) {
	cfgPath, home, err := paths()
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

// NewSkillsCmd is `joshbot skills` and its subcommands.
func NewSkillsCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "skills",
		Short: "List skills and approve workspace skills",
		Long: "Skills are workspace/skills/<name>/SKILL.md files. A workspace skill is inert until you\n" +
			"approve it with `joshbot skills trust <name>`; the approval is bound to the file's content,\n" +
			"so any edit revokes it. Skills bundled with joshbot need no approval.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newSkillsListCmd(f, runSkillsList), newSkillsTrustCmd(f, runSkillsTrust), newSkillsUntrustCmd(f, runSkillsUntrust))
	return cmd
}

// skillOptions is what a skills command needs of the Factory.
type skillOptions struct {
	IO    *cmdutil.Streams
	Paths func() (cfgPath, home string, err error)
}

func skillsOf(f *cmdutil.Factory) skillOptions { return skillOptions{IO: f.IO, Paths: f.Paths} }

// skillsListOptions is what `skills list` runs with.
type skillsListOptions struct {
	skillOptions
	// JSON is --json, the same as --output json.
	JSON bool
}

func newSkillsListCmd(f *cmdutil.Factory, runF func(context.Context, *skillsListOptions) error) *cobra.Command {
	opts := &skillsListOptions{skillOptions: skillsOf(f)}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List every skill with its trust state",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return runF(cmd.Context(), opts) },
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON (the same as --output json)")
	return cmd
}

func runSkillsList(_ context.Context, opts *skillsListOptions) error {
	format := opts.IO.Format
	if opts.JSON {
		format = output.JSON
	}
	lib, err := SkillLibrary(opts.Paths)
	if err != nil {
		return cmdutil.Fail(opts.IO, format, err)
	}
	all, err := lib.List()
	if err != nil {
		return cmdutil.Fail(opts.IO, format, err)
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
	sort.Slice(doc.Skills, func(i, j int) bool { return doc.Skills[i].Name < doc.Skills[j].Name })
	return output.Write(opts.IO.Out, format, doc)
}

// skillsTrustOptions is what `skills trust` runs with.
type skillsTrustOptions struct {
	skillOptions
	Name string
}

func newSkillsTrustCmd(f *cmdutil.Factory, runF func(context.Context, *skillsTrustOptions) error) *cobra.Command {
	opts := &skillsTrustOptions{skillOptions: skillsOf(f)}
	return &cobra.Command{
		Use:   "trust <name>",
		Short: "Approve a workspace skill as it is now (read it first)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			return runF(cmd.Context(), opts)
		},
	}
}

func runSkillsTrust(_ context.Context, opts *skillsTrustOptions) error {
	lib, err := SkillLibrary(opts.Paths)
	if err != nil {
		return err
	}
	h, err := lib.Trust(opts.Name)
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Out, "Trusted %s (sha256 %s). Any edit revokes it.\n", opts.Name, h[:12])
	return nil
}

// skillsUntrustOptions is what `skills untrust` runs with.
type skillsUntrustOptions struct {
	skillOptions
	Name string
}

func newSkillsUntrustCmd(f *cmdutil.Factory, runF func(context.Context, *skillsUntrustOptions) error) *cobra.Command {
	opts := &skillsUntrustOptions{skillOptions: skillsOf(f)}
	return &cobra.Command{
		Use:   "untrust <name>",
		Short: "Withdraw approval of a workspace skill",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			return runF(cmd.Context(), opts)
		},
	}
}

func runSkillsUntrust(_ context.Context, opts *skillsUntrustOptions) error {
	lib, err := SkillLibrary(opts.Paths)
	if err != nil {
		return err
	}
	if err := lib.Untrust(opts.Name); err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Out, "%s is no longer trusted.\n", opts.Name)
	return nil
}
