package output

import (
	"fmt"
	"io"
	"strings"
)

// Preflight answers "would joshbot start, and with what?" without dialling
// anything.
type Preflight struct {
	SchemaVersion int `json:"schema_version"`
	// Config is the config file read, with the home directory as ~.
	Config string `json:"config"`
	// Profile is the profile selected; empty when none.
	Profile string `json:"profile,omitempty"`
	// Ready is true when joshbot would start with this config.
	Ready bool `json:"ready"`
	// Models are the models that resolved, primary first.
	Models []PreflightModel `json:"models"`
	// Problems are why joshbot would not start; empty when Ready.
	Problems []Problem `json:"problems"`
	// Shell says whether shell commands would run confined; nil when the
	// config could not be read.
	Shell *Shell `json:"shell,omitempty"`
}

// Shell reports the shell tool's confinement on this system.
type Shell struct {
	// Mechanism is "landlock", "seatbelt" or empty when there is none.
	Mechanism string `json:"mechanism,omitempty"`
	// LandlockABI is the kernel's Landlock ABI; 0 when there is none.
	LandlockABI int `json:"landlock_abi"`
	// Confined is true when commands would run inside the sandbox.
	Confined bool `json:"confined"`
	// Detail explains the state and the key that changes it.
	Detail string `json:"detail"`
	// Layers lists each layer of the sandbox (namespaces, idmapped
	// mounts, seccomp, Landlock) as the probe found it; empty where the
	// platform's sandbox has no layers to report.
	Layers []ShellLayer `json:"layers,omitempty"`
}

// ShellLayer is one layer of the shell's sandbox.
type ShellLayer struct {
	Name      string `json:"name"`
	Available bool   `json:"available"`
	Detail    string `json:"detail,omitempty"`
}

// PreflightModel is one resolved model.
type PreflightModel struct {
	// Role is "primary" or "fallback".
	Role string `json:"role"`
	// Key is the config key of the entry.
	Key string `json:"key"`
	// Provider is the provider's config name.
	Provider string `json:"provider"`
	// Model is as configured; WireModel is what is sent.
	Model     string `json:"model"`
	WireModel string `json:"wire_model"`
	// APIHost is the endpoint's host, never the whole URL.
	APIHost string `json:"api_host"`
	// Credential says where the key comes from, never what it is.
	Credential Credential `json:"credential"`
	// Timeout is the per-request timeout, or "default".
	Timeout string `json:"timeout"`
	// MaxRetries is the same-provider retry budget.
	MaxRetries int `json:"max_retries"`
}

// Credential names the source of a key.
type Credential struct {
	// Source is "env-override", "api_key_env", "api_key" or "none".
	Source string `json:"source"`
	// Variable is the environment variable read, when there is one.
	Variable string `json:"variable,omitempty"`
}

// String renders the source for text reports, e.g. "$GROQ_API_KEY (api_key_env)".
func (c Credential) String() string {
	switch c.Source {
	case "env-override":
		return "$" + c.Variable + " (environment override)"
	case "api_key_env":
		return "$" + c.Variable + " (api_key_env)"
	case "api_key":
		return "api_key in the config file"
	}
	return "none"
}

// Problem is one reason joshbot would not start.
type Problem struct {
	// Code is no-default-provider, provider-not-enabled,
	// missing-credential or unresolvable.
	Code string `json:"code"`
	// Key is the config key to change; empty when unknown.
	Key string `json:"key,omitempty"`
	// Message explains it.
	Message string `json:"message"`
}

// WriteText renders the report for a person.
func (p *Preflight) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Config:  %s\n", p.Config)
	if p.Profile != "" {
		fmt.Fprintf(&b, "Profile: %s\n", p.Profile)
	}
	if len(p.Models) > 0 {
		b.WriteString("\n")
		tw := newTable(&b)
		fmt.Fprintln(tw, "ROLE\tPROVIDER\tWIRE MODEL\tAPI HOST\tCREDENTIAL\tRETRIES\tTIMEOUT")
		for _, m := range p.Models {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\n", m.Role, m.Provider, m.WireModel, m.APIHost, m.Credential, m.MaxRetries, m.Timeout)
		}
		tw.Flush()
	}
	if p.Shell != nil {
		fmt.Fprintf(&b, "\nShell:   %s\n", p.Shell.Detail)
		for _, l := range p.Shell.Layers {
			state := "missing"
			if l.Available {
				state = "ok"
			}
			fmt.Fprintf(&b, "  %-16s %-8s %s\n", l.Name, state, l.Detail)
		}
	}
	if len(p.Problems) > 0 {
		b.WriteString("\n")
		for _, pr := range p.Problems {
			fmt.Fprintf(&b, "problem [%s]: %s\n", pr.Code, pr.Message)
		}
	}
	if p.Ready {
		b.WriteString("\nReady: joshbot would start.\n")
	} else {
		b.WriteString("\nNot ready: joshbot would not start with this config.\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ProfileList is the report of profiles list.
type ProfileList struct {
	SchemaVersion int `json:"schema_version"`
	// Config is the config file read, with the home directory as ~.
	Config string `json:"config"`
	// DefaultProfile is default_profile; empty when unset.
	DefaultProfile string `json:"default_profile,omitempty"`
	// Profiles are sorted by name.
	Profiles []ProfileItem `json:"profiles"`
}

// ProfileItem is one profile.
type ProfileItem struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Enabled is false for a profile marked disabled.
	Enabled bool `json:"enabled"`
	// Default is true for the profile default_profile names.
	Default bool `json:"default"`
	// Provider, Model and WireModel are what the profile dials.
	Provider  string `json:"provider"`
	Model     string `json:"model"`
	WireModel string `json:"wire_model"`
	// APIHost is the endpoint's host, never the whole URL.
	APIHost string `json:"api_host"`
	// KeyEnv names the variable holding the key; KeySet says whether it
	// is set. Neither is the key.
	KeyEnv string `json:"key_env,omitempty"`
	KeySet bool   `json:"key_set"`
	// Fallbacks counts the profile's fallback models.
	Fallbacks int `json:"fallbacks"`
	// Problem is why selecting the profile would fail; nil when it works.
	Problem *Problem `json:"problem,omitempty"`
}

// WriteText renders the list for a person.
func (l *ProfileList) WriteText(w io.Writer) error {
	var b strings.Builder
	if len(l.Profiles) == 0 {
		fmt.Fprintf(&b, "No profiles in %s. Add a \"profiles\" block to define some.\n", l.Config)
		_, err := io.WriteString(w, b.String())
		return err
	}
	tw := newTable(&b)
	fmt.Fprintln(tw, "NAME\tPROVIDER\tWIRE MODEL\tAPI HOST\tKEY\tSTATUS\tDESCRIPTION")
	for _, p := range l.Profiles {
		name := p.Name
		if p.Default {
			name += " (default)"
		}
		key := "none"
		if p.KeyEnv != "" {
			key = "$" + p.KeyEnv + " (unset)"
			if p.KeySet {
				key = "$" + p.KeyEnv + " (set)"
			}
		}
		status := "ok"
		switch {
		case !p.Enabled:
			status = "disabled"
		case p.Problem != nil:
			status = p.Problem.Code
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", name, dash(p.Provider), dash(p.WireModel), dash(p.APIHost), key, status, dash(p.Description))
	}
	tw.Flush()
	for _, p := range l.Profiles {
		if p.Problem != nil && p.Enabled {
			fmt.Fprintf(&b, "%s: %s\n", p.Name, p.Problem.Message)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
