package runtime

import (
	"errors"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/sandbox"
	"github.com/joshbot/joshbot/tools"
)

// Checked is what [Options.Check] found: the config and its resolved model
// chain when they load, and every problem that would stop [Load].
type Checked struct {
	// Config is the loaded config, nil when it does not load.
	Config *config.Config
	// Models is the resolved chain (the models that resolve, in order);
	// nil when the config does not load.
	Models *config.ModelConfig
	// Problems is every reason start-up would refuse, in the order found;
	// empty when it would start (as far as can be told without building
	// the sandbox or dialling anything).
	Problems []error

	chain *providers.Chain
}

// Check runs the validation [Load] runs before it builds anything, and
// collects every problem instead of stopping at the first: the config
// (profile, credential variables, environment overrides, values), each
// model of the chain, the provider clients, and the settings of the shell
// and web tools. Load refuses to start exactly when Problems is not empty,
// so `joshbot preflight` and `joshbot status`, which report Check, cannot
// call ready a config that does not start.
func (o *Options) Check() *Checked {
	o = o.withDefaults()
	c := &Checked{}
	cfg, err := o.LoadConfig()
	if err != nil {
		c.Problems = append(c.Problems, err)
		return c
	}
	c.Config = cfg
	mc, problems := cfg.ResolveAll()
	c.Models = mc
	for _, p := range problems {
		c.Problems = append(c.Problems, p)
	}
	if len(problems) == 0 {
		if c.chain, err = o.ProviderChain(mc); err != nil {
			c.Problems = append(c.Problems, err)
		}
	}
	if _, err := cfg.WorkspaceDir(o.Home); err != nil {
		c.Problems = append(c.Problems, err)
	}
	c.Problems = append(c.Problems, checkTools(cfg)...)
	return c
}

// Err is the problems as one error naming the config file, nil when there
// are none.
func (c *Checked) Err(cfgPath string) error {
	if len(c.Problems) == 0 {
		return nil
	}
	if c.Config == nil {
		// The load error names the file itself.
		return c.Problems[0]
	}
	return errorf("%w (config %s)", errors.Join(c.Problems...), config.Tilde(cfgPath))
}

// checkTools validates the tool settings that registerShellAndWeb would
// refuse, without building anything.
func checkTools(cfg *config.Config) []error {
	var errs []error
	tc := &cfg.Tools
	if _, err := sandbox.NewScreener(&sandbox.ScreenOptions{Mode: sandbox.ScreenAllowlist, Allow: tc.ShellAllow, Deny: tc.ShellDeny}); err != nil {
		errs = append(errs, errorf("tools.shell_allow: %w", err))
	}
	if _, err := tools.ParseApprovalMode(tc.ShellApproval); err != nil {
		errs = append(errs, errorf("tools.shell_approval: %w", err))
	}
	// Whether the exa command is installed changes no error, so $PATH
	// is searched once, when the backends are built.
	if _, err := searchBackends(&tc.Web, &mcpSearchTools{}, anyMCPEnabled(cfg), func(string) bool { return false }); err != nil {
		errs = append(errs, err)
	}
	return errs
}
