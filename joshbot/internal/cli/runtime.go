package cli

import (
	"context"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
	"github.com/joshbot/joshbot/providers"
)

// loadRuntime loads the runtime of the configured home with o's choices
// (nil: the defaults) and the run's global flags: the config, --profile,
// the logger, and the provider health the process shares.
func (a *app) loadRuntime(ctx context.Context, o *runtime.Options) (*runtime.Runtime, error) {
	opts, err := a.runtimeOptions(o)
	if err != nil {
		return nil, err
	}
	return runtime.Load(ctx, opts)
}

// runtimeOptions returns o (nil: the defaults) completed with the run's
// global flags: the config, --profile, the logger, and the provider
// health the process shares.
func (a *app) runtimeOptions(o *runtime.Options) (*runtime.Options, error) {
	cfgPath, home, err := a.paths()
	if err != nil {
		return nil, err
	}
	opts := runtime.Options{}
	if o != nil {
		opts = *o
	}
	opts.ConfigPath, opts.Home = cfgPath, home
	opts.Profile = a.profile
	opts.Logger = a.log
	opts.Stdout = a.stdout
	if a.health == nil {
		a.health = providers.NewHealth(nil)
	}
	opts.Health = a.health
	if a.runtimeSeams != nil {
		a.runtimeSeams(&opts)
	}
	return &opts, nil
}

// loadStored opens the stored sessions and memory of the configured home.
func (a *app) loadStored() (*runtime.Stored, error) {
	cfgPath, home, err := a.paths()
	if err != nil {
		return nil, err
	}
	return runtime.LoadStored(cfgPath, home)
}

// loadConfig loads the config at cfgPath with --profile applied, strictly.
func (a *app) loadConfig(cfgPath string) (*config.Config, error) {
	return (&runtime.Options{ConfigPath: cfgPath, Profile: a.profile, Logger: a.log}).LoadConfig()
}
