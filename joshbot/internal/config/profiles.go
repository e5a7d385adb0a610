package config

import (
	"fmt"
	"sort"
	"strings"
)

// Profile is a named model setup: a provider, model and endpoint, with
// optional fallbacks, selected for one run with --profile or by
// default_profile. A selected profile replaces models_config.agent
// entirely, so a run never dials an endpoint the profile does not name.
type Profile struct {
	// Description says what the profile is for; shown by profiles list.
	Description string `json:"description,omitempty"`
	// Disabled keeps the profile from being selected.
	Disabled bool `json:"disabled,omitempty"`
	// Model, Provider, APIKeyEnv, APIBase, Timeout, MaxRetries, ExtraBody
	// and Fallbacks mean what they mean in a [ModelEntry].
	Model      string         `json:"model,omitempty"`
	Provider   string         `json:"provider,omitempty"`
	APIKeyEnv  string         `json:"api_key_env,omitempty"`
	APIBase    string         `json:"api_base,omitempty"`
	Timeout    Duration       `json:"timeout,omitzero"`
	MaxRetries *int           `json:"max_retries,omitempty"`
	ExtraBody  map[string]any `json:"extra_body,omitempty"`
	Fallbacks  []ModelEntry   `json:"fallbacks,omitempty"`
	// APIKey exists only so that writing a key into a profile is refused
	// at load: a profiles block is what people paste into bug reports.
	// Use APIKeyEnv.
	APIKey string `json:"api_key,omitempty"`
}

// entry is the model-centric form of p.
func (p *Profile) entry() ModelEntry {
	return ModelEntry{
		Model: p.Model, Provider: p.Provider, APIKeyEnv: p.APIKeyEnv, APIBase: p.APIBase,
		Timeout: p.Timeout, MaxRetries: p.MaxRetries, ExtraBody: p.ExtraBody,
		Fallbacks: append([]ModelEntry(nil), p.Fallbacks...),
	}
}

// ProfileNames returns the configured profile names, sorted.
func (c *Config) ProfileNames() []string {
	names := make([]string, 0, len(c.Profiles))
	for n := range c.Profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// checkProfiles refuses a credential written into any profile, selected or
// not, and any api_key inside a profile's fallbacks.
func (c *Config) checkProfiles() error {
	for _, name := range c.ProfileNames() {
		p := c.Profiles[name]
		if p.APIKey != "" {
			return fmt.Errorf("profiles.%s.api_key holds a credential, which a profile may not: remove it and set profiles.%s.api_key_env to the name of a variable holding the key", name, name)
		}
		for i, f := range p.Fallbacks {
			if f.APIKey != "" {
				return fmt.Errorf("profiles.%s.fallbacks[%d].api_key holds a credential, which a profile may not: remove it and set profiles.%s.fallbacks[%d].api_key_env instead", name, i, name, i)
			}
		}
	}
	return nil
}

// applyProfile selects a profile: flag wins over default_profile, and with
// neither the config stays exactly as written.
func (c *Config) applyProfile(flag string) error {
	name, from := flag, "--profile"
	if name == "" {
		name, from = c.DefaultProfile, "default_profile"
	}
	if name == "" {
		return nil
	}
	p, ok := c.Profiles[name]
	if !ok {
		configured := "none are configured; add a profiles block"
		if names := c.ProfileNames(); len(names) > 0 {
			configured = "configured profiles: " + strings.Join(names, ", ")
		}
		return fmt.Errorf("%s names profile %q, which does not exist (%s)", from, name, configured)
	}
	if p.Disabled {
		return fmt.Errorf("profile %q (%s) is disabled: set profiles.%s.disabled to false, or choose another profile", name, from, name)
	}
	if p.Model == "" {
		return fmt.Errorf("profile %q has no model: set profiles.%s.model", name, name)
	}
	c.ModelsConfig = ModelsConfig{Agent: p.entry()}
	c.profile = name
	return nil
}
