package runtime

import (
	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/joshbot/internal/config"
)

// learningModel points the agent's learning step at
// agents.defaults.learning_model when it is set (and learning is on): a
// chain of that one model, with the provider's retries and the shared
// health, so the learning step can ask a cheaper model than the turns.
func (o *Options) learningModel(cfg *config.Config, cfgPath string, opts *agent.Options) error {
	if opts.Memory.DisableLearning {
		return nil
	}
	rm, err := cfg.ResolveLearningModel()
	if err != nil {
		return errorf("%w (config %s)", err, config.Tilde(cfgPath))
	}
	if rm == nil {
		return nil
	}
	chain, err := o.ProviderChain(&config.ModelConfig{Models: []config.ResolvedModel{*rm}, ModelKey: rm.Key})
	if err != nil {
		return err
	}
	opts.Memory.LearnProvider, opts.Memory.LearnModel = chain, rm.WireModel
	return nil
}
