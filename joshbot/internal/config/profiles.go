package config

import (
	"os"
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
			return errorf("profiles.%s.api_key holds a credential, which a profile may not: remove it and set profiles.%s.api_key_env to the name of a variable holding the key", name, name)
		}
		for i, f := range p.Fallbacks {
			if f.APIKey != "" {
				return errorf("profiles.%s.fallbacks[%d].api_key holds a credential, which a profile may not: remove it and set profiles.%s.fallbacks[%d].api_key_env instead", name, i, name, i)
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
		return errorf("%s names profile %q, which does not exist (%s)", from, name, configured)
	}
	if p.Disabled {
		return errorf("profile %q (%s) is disabled: set profiles.%s.disabled to false, or choose another profile", name, from, name)
	}
	if p.Model == "" {
		return errorf("profile %q has no model: set profiles.%s.model", name, name)
	}
	c.ModelsConfig = ModelsConfig{Agent: p.entry()}
	c.profile = name
	return nil
}

// Inspect reads the config at path for a report such as profiles list: it
// parses it, refuses credentials in profiles, applies environment
// overrides and validates, but reads no api_key_env variable and applies no
// profile, so one unset variable does not hide everything else.
func Inspect(path string) (*Config, error) {
	data, err := readConfigFile(path)
	if err != nil {
		return nil, err
	}
	cfg, err := Parse(path, data)
	if err != nil {
		return nil, err
	}
	if err := cfg.checkProfiles(); err != nil {
		return nil, errorf("config %s: %w", path, err)
	}
	if err := ApplyEnv(cfg, os.Environ()); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, errorf("config %s: %w", path, err)
	}
	return cfg, nil
}

// ProfileInfo describes one profile for a report. It holds no credential.
type ProfileInfo struct {
	// Name and Description are the profile's.
	Name, Description string
	// Disabled mirrors profiles.<name>.disabled; Default is true for the
	// profile named by default_profile.
	Disabled, Default bool
	// Provider, Model and WireModel are what the profile would dial;
	// BaseURL is its endpoint (report only its host).
	Provider, Model, WireModel, BaseURL string
	// KeyEnv names the variable holding the credential ("" when none is
	// named) and KeySet says whether it is set and not blank.
	KeyEnv string
	KeySet bool
	// Fallbacks counts the profile's fallbacks.
	Fallbacks int
	// Problem is why the profile could not be used; nil when it could.
	Problem *ResolveError
}

// DescribeProfiles reports every profile, sorted by name, as it would
// resolve if selected, without reading any credential.
func (c *Config) DescribeProfiles() []ProfileInfo {
	var out []ProfileInfo
	for _, name := range c.ProfileNames() {
		p := c.Profiles[name]
		info := ProfileInfo{Name: name, Description: p.Description, Disabled: p.Disabled, Default: name == c.DefaultProfile,
			Model: p.Model, Fallbacks: len(p.Fallbacks)}
		probe := *c
		probe.ModelsConfig = ModelsConfig{Agent: p.entry()}
		probe.profile = name
		rm, err := probe.resolveEntry(probe.agentKey(), &probe.ModelsConfig.Agent)
		if rm != nil {
			info.Provider, info.WireModel, info.BaseURL = rm.Provider, rm.WireModel, rm.BaseURL
			info.KeyEnv = p.APIKeyEnv
			if info.KeyEnv == "" {
				info.KeyEnv = c.Providers[rm.Provider].APIKeyEnv
			}
		}
		if info.KeyEnv != "" {
			v, ok := os.LookupEnv(info.KeyEnv)
			info.KeySet = ok && strings.TrimSpace(v) != ""
		}
		unsetOwnKey := p.APIKeyEnv != "" && !info.KeySet
		if err != nil && (!unsetOwnKey || asResolveError(err).Code != CodeMissingCredential) {
			re := asResolveError(err)
			// Inspect reads no variables, so a key that is named and set
			// is not missing.
			if !(re.Code == CodeMissingCredential && info.KeySet) {
				info.Problem = re
			}
		} else if unsetOwnKey {
			info.Problem = &ResolveError{CodeMissingCredential, "profiles." + name + ".api_key_env",
				errorf("profiles.%s.api_key_env names %s, which is not set", name, p.APIKeyEnv)}
		}
		out = append(out, info)
	}
	return out
}
