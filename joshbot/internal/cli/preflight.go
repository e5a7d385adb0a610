package cli

import (
	"context"
	"errors"
	"strings"

	"github.com/spf13/cobra"

	"github.com/joshbot/joshbot/joshbot/internal/cmdutil"
	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/onboard"
	"github.com/joshbot/joshbot/joshbot/internal/output"
	"github.com/joshbot/joshbot/joshbot/internal/report"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
	"github.com/joshbot/joshbot/sandbox"
)

// preflightOptions is what `joshbot preflight` runs with.
type preflightOptions struct {
	IO             *cmdutil.Streams
	RuntimeOptions func(profile string, o *runtime.Options) (*runtime.Options, error)
	Probe          func() sandbox.Report

	// Profile is --profile.
	Profile string
}

func newPreflightOptions(f *cmdutil.Factory) *preflightOptions {
	return &preflightOptions{IO: f.IO, RuntimeOptions: f.RuntimeOptions, Probe: f.Probe}
}

func newPreflight(f *cmdutil.Factory) *cobra.Command { return newPreflightCommand(f, runPreflight) }

// newPreflightCommand wires the preflight flags into preflightOptions and
// hands them to runF.
func newPreflightCommand(f *cmdutil.Factory, runF func(context.Context, *preflightOptions) error) *cobra.Command {
	opts := newPreflightOptions(f)
	cmd := &cobra.Command{
		Use:   "preflight",
		Short: "Report whether joshbot would start, and with which models, without dialling anything",
		Long: "preflight loads the config the way `joshbot agent` does (profile, environment overrides,\n" +
			"credential variables) and reports, for the primary model and each fallback, the provider,\n" +
			"the model id sent on the wire, the API host and where the credential comes from (never\n" +
			"the credential). Problems are classified as no-default-provider, provider-not-enabled,\n" +
			"missing-credential or unresolvable. It exits 1 when joshbot would not start.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runF(cmd.Context(), opts) },
	}
	cmdutil.AddProfileFlag(cmd, &opts.Profile)
	return cmd
}

func runPreflight(_ context.Context, opts *preflightOptions) error {
	ro, err := opts.RuntimeOptions(opts.Profile, nil)
	if err != nil {
		return cmdutil.Fail(opts.IO, opts.IO.Format, err)
	}
	cfgPath := ro.ConfigPath
	doc := &output.Preflight{
		SchemaVersion: output.SchemaVersion,
		Config:        tildePath(cfgPath),
		Profile:       opts.Profile,
		Models:        []output.PreflightModel{},
		Problems:      []output.Problem{},
	}
	// Exactly the validation start-up runs, every problem of it.
	checked := ro.Check()
	for _, p := range checked.Problems {
		doc.Problems = append(doc.Problems, problemOf(p, cfgPath))
	}
	if cfg := checked.Config; cfg != nil {
		doc.Profile = cfg.Profile()
		for _, m := range checked.Models.Models {
			doc.Models = append(doc.Models, report.ModelLine(m))
		}
		rep := opts.Probe()
		confined, detail := onboard.ShellConfinement(cfg, rep)
		doc.Shell = &output.Shell{Mechanism: rep.Mechanism, LandlockABI: rep.LandlockABI, Confined: confined, Detail: detail}
		for _, l := range rep.Layers() {
			doc.Shell.Layers = append(doc.Shell.Layers, output.ShellLayer{Name: l.Name, Available: l.Available, Detail: l.Detail})
		}
		if strings.HasPrefix(detail, "startup error") {
			doc.Problems = append(doc.Problems, output.Problem{Code: "unresolvable", Key: "tools.shell_sandbox", Message: detail})
		}
	}
	doc.Ready = len(doc.Problems) == 0
	if err := output.Write(opts.IO.Out, opts.IO.Format, doc); err != nil {
		return err
	}
	if !doc.Ready {
		return cmdutil.ExitError{Code: 1}
	}
	return nil
}

// problemOf classifies a load or resolve failure.
func problemOf(err error, cfgPath string) output.Problem {
	p := output.Problem{Code: config.CodeUnresolvable, Message: cmdutil.TildeIn(err.Error(), cfgPath)}
	var re *config.ResolveError
	switch {
	case errors.As(err, &re):
		p.Code, p.Key = re.Code, re.Key
	case errors.Is(err, config.ErrNotFound):
		p.Code = config.CodeNoDefaultProvider
	}
	return p
}
