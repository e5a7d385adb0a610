package cli

import (
	"errors"
	"strings"

	"github.com/spf13/cobra"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/output"
)

// addProfileFlag gives cmd the --profile flag. Every command that loads the
// config to run (agent, preflight, and the gateway when it exists) takes
// it, and a.loadConfig applies it, so the selection rule lives in one
// place.
func (a *app) addProfileFlag(cmd *cobra.Command) {
	cmd.Flags().StringVar(&a.profile, "profile", "", "use the named profile from the config's profiles block (default: default_profile, else none)")
}

func (a *app) profilesCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "profiles",
		Short: "Named model setups, selected per run with --profile",
		Long: "A profile names a provider, model and endpoint (and optional fallbacks) under\n" +
			"\"profiles\" in config.json. --profile NAME selects one for a run; default_profile\n" +
			"selects one when the flag is absent. A selected profile replaces models_config.agent.",
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List the profiles: provider, model, endpoint host and credential variable (never the credential)",
		Args:  cobra.NoArgs,
		RunE:  func(*cobra.Command, []string) error { return a.profilesList() },
	})
	return cmd
}

func (a *app) profilesList() error {
	cfgPath, _, err := a.paths()
	if err != nil {
		return a.fail(err)
	}
	cfg, err := config.Inspect(cfgPath)
	if err != nil {
		return a.fail(errors.New(tildeIn(err.Error(), cfgPath)))
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
			item.Problem = &output.Problem{Code: p.Problem.Code, Key: p.Problem.Key, Message: tildeIn(p.Problem.Error(), cfgPath)}
		}
		doc.Profiles = append(doc.Profiles, item)
	}
	return output.Write(a.stdout, a.format, doc)
}

// fail reports err the way --output asks: in JSON as an error document on
// stdout (the one stream a JSON consumer reads), in text as usual.
func (a *app) fail(err error) error { return a.failAs(a.format, err) }

// failAs is fail for a command whose own flag (--json) chose the format.
func (a *app) failAs(format output.Format, err error) error {
	if format == output.JSON {
		if werr := output.WriteError(a.stdout, output.JSON, 1, err); werr != nil {
			return werr
		}
		return exitError{code: 1}
	}
	return err
}

// tildeIn shows the config path in msg with the home directory as ~.
func tildeIn(msg, cfgPath string) string {
	return strings.ReplaceAll(msg, cfgPath, tildePath(cfgPath))
}
