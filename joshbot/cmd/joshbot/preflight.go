package main

import (
	"errors"
	"strings"

	"github.com/spf13/cobra"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/output"
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
	cfgPath, _, err := a.paths()
	if err != nil {
		return a.fail(err)
	}
	doc := &output.Preflight{
		SchemaVersion: output.SchemaVersion,
		Config:        tildePath(cfgPath),
		Profile:       a.profile,
		Models:        []output.PreflightModel{},
		Problems:      []output.Problem{},
	}
	cfg, err := a.loadConfig(cfgPath)
	if err != nil {
		doc.Problems = append(doc.Problems, problemOf(err, cfgPath))
	} else {
		doc.Profile = cfg.Profile()
		// The same resolution the agent is wired from, so what preflight
		// reports is what would be sent.
		mc, problems := cfg.ResolveAll()
		for _, m := range mc.Models {
			role := "primary"
			if strings.Contains(m.Key, ".fallbacks[") {
				role = "fallback"
			}
			timeout := "default"
			if m.Timeout > 0 {
				timeout = m.Timeout.String()
			}
			doc.Models = append(doc.Models, output.PreflightModel{
				Role: role, Key: m.Key, Provider: m.Provider, Model: m.Model, WireModel: m.WireModel,
				APIHost:    config.Host(m.BaseURL),
				Credential: output.Credential{Source: m.Credential.Kind, Variable: m.Credential.Variable},
				Timeout:    timeout, MaxRetries: m.MaxRetries,
			})
		}
		for _, p := range problems {
			doc.Problems = append(doc.Problems, problemOf(p, cfgPath))
		}
		if len(problems) == 0 {
			if _, err := a.providerChain(mc); err != nil {
				doc.Problems = append(doc.Problems, problemOf(err, cfgPath))
			}
		}
		rep := probeSandbox()
		confined, detail := shellConfinement(cfg)
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
