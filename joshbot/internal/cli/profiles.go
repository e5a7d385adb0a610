package cli

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/joshbot/joshbot/joshbot/internal/cmdutil"
	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/output"
)

func newProfilesCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "profiles",
		Short: "Named model setups, selected per run with --profile",
		Long: "A profile names a provider, model and endpoint (and optional fallbacks) under\n" +
			"\"profiles\" in config.json. --profile NAME selects one for a run; default_profile\n" +
			"selects one when the flag is absent. A selected profile replaces models_config.agent.",
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newProfilesListCmd(f, runProfilesList))
	return cmd
}

// pathsOptions is what a command that reads the config file as written
// needs of the Factory.
type pathsOptions struct {
	IO    *cmdutil.Streams
	Paths func() (cfgPath, home string, err error)
}

// profilesListOptions is what `profiles list` runs with.
type profilesListOptions struct{ pathsOptions }

func newProfilesListCmd(f *cmdutil.Factory, runF func(context.Context, *profilesListOptions) error) *cobra.Command {
	opts := &profilesListOptions{pathsOptions{IO: f.IO, Paths: f.Paths}}
	return &cobra.Command{
		Use:   "list",
		Short: "List the profiles: provider, model, endpoint host and credential variable (never the credential)",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return runF(cmd.Context(), opts) },
	}
}

func runProfilesList(_ context.Context, opts *profilesListOptions) error {
	fail := func(err error) error { return cmdutil.Fail(opts.IO, opts.IO.Format, err) }
	cfgPath, _, err := opts.Paths()
	if err != nil {
		return fail(err)
	}
	cfg, err := config.Inspect(cfgPath)
	if err != nil {
		return fail(errors.New(cmdutil.TildeIn(err.Error(), cfgPath)))
	}
	doc := &output.ProfileList{
		SchemaVersion:  output.SchemaVersion,
		Config:         tildePath(cfgPath),
		DefaultProfile: cfg.DefaultProfile,
		Profiles:       []output.ProfileItem{},
	}
	for _, p := range cfg.DescribeProfiles() {
		item := output.ProfileItem{
			Name: p.Name, Description: p.Description, Enabled: !p.Disabled, Default: p.Default,
			Provider: p.Provider, Model: p.Model, WireModel: p.WireModel, APIHost: config.Host(p.BaseURL),
			KeyEnv: p.KeyEnv, KeySet: p.KeySet, Fallbacks: p.Fallbacks,
		}
		if p.Problem != nil {
			item.Problem = &output.Problem{Code: p.Problem.Code, Key: p.Problem.Key, Message: cmdutil.TildeIn(p.Problem.Error(), cfgPath)}
		}
		doc.Profiles = append(doc.Profiles, item)
	}
	return output.Write(opts.IO.Out, opts.IO.Format, doc)
}
