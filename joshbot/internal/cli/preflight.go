package cli

import (
	"errors"
	"strings"

	"github.com/spf13/cobra"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/onboard"
	"github.com/joshbot/joshbot/joshbot/internal/output"
	"github.com/joshbot/joshbot/joshbot/internal/report"
)

func (a *app) preflightCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "preflight",
		Short: "Report whether joshbot would start, and with which models, without dialling anything",
		Long: "preflight loads the config the way `joshbot agent` does (profile, environment overrides,\n" +
			"credential variables) and reports, for the primary model and each fallback, the provider,\n" +
			"the model id sent on the wire, the API host and where the credential comes from (never\n" +
			"the credential). Problems are classified as no-default-provider, provider-not-enabled,\n" +
			"missing-credential or unresolvable. It exits 1 when joshbot would not start.",
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return a.preflight() },
	}
	a.addProfileFlag(cmd)
	return cmd
}

func (a *app) preflight() error {
	ro, err := a.runtimeOptions(nil)
	if err != nil {
		return a.fail(err)
	}
	cfgPath := ro.ConfigPath
	doc := &output.Preflight{
		SchemaVersion: output.SchemaVersion,
		Config:        tildePath(cfgPath),
		Profile:       a.profile,
		Models:        []output.PreflightModel{},
		Problems:      []output.Problem{},
	}
	cfg, err := ro.LoadConfig()
	if err != nil {
		doc.Problems = append(doc.Problems, problemOf(err, cfgPath))
	} else {
		doc.Profile = cfg.Profile()
		// The same resolution the agent is wired from, so what preflight
		// reports is what would be sent.
		mc, problems := cfg.ResolveAll()
		for _, m := range mc.Models {
			doc.Models = append(doc.Models, report.ModelLine(m))
		}
		for _, p := range problems {
			doc.Problems = append(doc.Problems, problemOf(p, cfgPath))
		}
		if len(problems) == 0 {
			if _, err := ro.ProviderChain(mc); err != nil {
				doc.Problems = append(doc.Problems, problemOf(err, cfgPath))
			}
		}
		rep := a.probeSandbox()
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
	if err := output.Write(a.stdout, a.format, doc); err != nil {
		return err
	}
	if !doc.Ready {
		return exitError{code: 1}
	}
	return nil
}

// problemOf classifies a load or resolve failure.
func problemOf(err error, cfgPath string) output.Problem {
	p := output.Problem{Code: config.CodeUnresolvable, Message: tildeIn(err.Error(), cfgPath)}
	var re *config.ResolveError
	switch {
	case errors.As(err, &re):
		p.Code, p.Key = re.Code, re.Key
	case errors.Is(err, config.ErrNotFound):
		p.Code = config.CodeNoDefaultProvider
	}
	return p
}
