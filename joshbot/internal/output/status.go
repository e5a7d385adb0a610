package output

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// Status is the report of `joshbot status`: what joshbot would run with and
// what it has stored, read from disk without dialling anything.
type Status struct {
	SchemaVersion int    `json:"schema_version"`
	Config        string `json:"config"`
	Profile       string `json:"profile,omitempty"`
	// Ready is true when the model chain resolves with every credential.
	Ready bool `json:"ready"`
	// Models are the primary model and its fallbacks, in order.
	Models []PreflightModel `json:"models"`
	// Providers is the provider health a running gateway or API server
	// last recorded: failures since the last success and cooldowns.
	Providers []ProviderHealth `json:"providers"`
	Channels  []ChannelStatus  `json:"channels"`
	// Sessions is the number of stored conversations.
	Sessions int          `json:"sessions"`
	Memory   MemoryStatus `json:"memory"`
	// MCPServers are the declared MCP servers; none are started.
	MCPServers []MCPServerStatus `json:"mcp_servers"`
	// Workspace is the agent's workspace directory.
	Workspace string `json:"workspace"`
	// Shell says whether shell commands are confined, and how.
	Shell string `json:"shell"`
	// TurnTimeout is the configured turn timeout; HealedTimeout is what
	// the next start uses when heal_timeouts raised it, else empty.
	TurnTimeout   string `json:"turn_timeout"`
	HealedTimeout string `json:"healed_timeout,omitempty"`
	// ScheduledJobs counts cron jobs.
	ScheduledJobs int `json:"scheduled_jobs"`
	// SkillsUsable and SkillsPending count trusted skills and those
	// awaiting trust or broken.
	SkillsUsable  int `json:"skills_usable"`
	SkillsPending int `json:"skills_pending"`
	// Incidents counts the last 24 hours' incidents by kind.
	Incidents map[string]int `json:"incidents_24h"`
	// IncidentsError says why the incident log could not be read.
	IncidentsError string    `json:"incidents_error,omitempty"`
	Problems       []Problem `json:"problems"`
}

// ProviderHealth is one provider's recorded failures.
type ProviderHealth struct {
	Provider string `json:"provider"`
	// Failures counts failures since the last success.
	Failures int `json:"failures"`
	// CoolingUntil is when the provider is tried first again, RFC 3339 in
	// UTC; empty when it was not cooling down.
	CoolingUntil string `json:"cooling_until,omitempty"`
	// LastError is the last failure, redacted.
	LastError string `json:"last_error,omitempty"`
}

// ChannelStatus is one chat channel.
type ChannelStatus struct {
	Name    string `json:"name"`
	Enabled bool   `json:"enabled"`
	// Token says where its token comes from, never the token:
	// "$VAR (token_env)", "token in the config file" or "none".
	Token string `json:"token"`
	// TokenSet is true when that source holds a token.
	TokenSet bool `json:"token_set"`
	// AllowFrom is how many senders are allowed; -1 means anyone ("*").
	AllowFrom int `json:"allow_from"`
}

// MemoryStatus is the size of long-term memory.
type MemoryStatus struct {
	// Workspace is where MEMORY.md and HISTORY.md live.
	Workspace    string `json:"workspace"`
	MemoryBytes  int64  `json:"memory_md_bytes"`
	HistoryBytes int64  `json:"history_md_bytes"`
	SessionFacts int    `json:"session_memories"`
	LimitBytes   int    `json:"limit_bytes"`
}

// MCPServerStatus is one declared MCP server.
type MCPServerStatus struct {
	Name    string `json:"name"`
	Enabled bool   `json:"enabled"`
	// Transport is stdio or http.
	Transport string `json:"transport"`
	// Target is the command or the URL's host.
	Target string `json:"target"`
	// State is the server's state in the running gateway or serve, as it
	// last recorded it ("trusted", "suspect", "restarting", "failed", ...);
	// empty when no daemon has recorded one. The fields below go with it.
	State string `json:"state,omitempty"`
	// Restarts is how many restarts fall in the restart window.
	Restarts int `json:"restarts,omitempty"`
	// RestartBudget is how many restarts the window allows.
	RestartBudget int `json:"restart_budget,omitempty"`
	// LastError is the most recent failure the daemon saw.
	LastError string `json:"last_error,omitempty"`
	// RetryAt (RFC 3339) is when a server past its restart budget may be
	// restarted again.
	RetryAt string `json:"retry_at,omitempty"`
}

// WriteText renders the report for a person.
func (s *Status) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Config: %s\n", s.Config)
	if s.Profile != "" {
		fmt.Fprintf(&b, "Profile: %s\n", s.Profile)
	}
	if len(s.Models) > 0 {
		m := s.Models[0]
		fmt.Fprintf(&b, "Model: %s via %s (%s)\n", m.WireModel, m.Provider, m.APIHost)
		for _, f := range s.Models[1:] {
			fmt.Fprintf(&b, "Fallback: %s via %s (%s)\n", f.WireModel, f.Provider, f.APIHost)
		}
	} else {
		b.WriteString("Model: none resolves\n")
	}
	if len(s.Providers) == 0 {
		b.WriteString("Providers: no failures recorded\n")
	}
	for _, p := range s.Providers {
		cool := "not cooling down"
		if p.CoolingUntil != "" {
			cool = "cooling down until " + p.CoolingUntil
			// The file may have been left by a daemon that has since
			// stopped: a cooldown already over is not one in progress.
			if until, err := time.Parse(time.RFC3339, p.CoolingUntil); err == nil && !until.After(time.Now()) {
				cool = "cooldown ended " + p.CoolingUntil
			}
		}
		fmt.Fprintf(&b, "Provider: %s: %d failures, %s; last: %s\n", p.Provider, p.Failures, cool, dash(p.LastError))
	}
	for _, c := range s.Channels {
		state := "off"
		if c.Enabled {
			state = "on"
		}
		allow := fmt.Sprintf("%d allowed senders", c.AllowFrom)
		if c.AllowFrom < 0 {
			allow = "anyone may talk to it"
		}
		set := "missing"
		if c.TokenSet {
			set = "present"
		}
		fmt.Fprintf(&b, "Channel: %s %s, token %s (%s), %s\n", c.Name, state, c.Token, set, allow)
	}
	fmt.Fprintf(&b, "Workspace: %s\n", s.Workspace)
	fmt.Fprintf(&b, "Shell: %s\n", s.Shell)
	if s.HealedTimeout != "" {
		fmt.Fprintf(&b, "Turn timeout: %s (next start: %s, raised by heal_timeouts)\n", s.TurnTimeout, s.HealedTimeout)
	} else {
		fmt.Fprintf(&b, "Turn timeout: %s\n", s.TurnTimeout)
	}
	fmt.Fprintf(&b, "Sessions: %d\n", s.Sessions)
	if s.ScheduledJobs > 0 {
		fmt.Fprintf(&b, "Scheduled jobs: %d\n", s.ScheduledJobs)
	}
	fmt.Fprintf(&b, "Skills: %d usable, %d awaiting trust or broken\n", s.SkillsUsable, s.SkillsPending)
	fmt.Fprintf(&b, "Memory: MEMORY.md %d bytes (limit %d), HISTORY.md %d bytes, %d session memories\n",
		s.Memory.MemoryBytes, s.Memory.LimitBytes, s.Memory.HistoryBytes, s.Memory.SessionFacts)
	if len(s.MCPServers) == 0 {
		b.WriteString("MCP: no servers declared\n")
	} else {
		tw := newTable(&b)
		for _, m := range s.MCPServers {
			state := "disabled"
			if m.Enabled {
				state = "enabled"
			}
			fmt.Fprintf(tw, "MCP:\t%s\t%s\t%s\t%s\n", m.Name, state, m.Transport, m.Target)
			if m.State != "" {
				fmt.Fprintf(tw, "\t  running: %s, restarts %d of %d", m.State, m.Restarts, m.RestartBudget)
				if m.RetryAt != "" {
					fmt.Fprintf(tw, ", down until %s", m.RetryAt)
				}
				if m.LastError != "" {
					fmt.Fprintf(tw, "; last error: %s", m.LastError)
				}
				fmt.Fprintln(tw)
			}
		}
		tw.Flush()
	}
	total, kinds := 0, make([]string, 0, len(s.Incidents))
	for k, n := range s.Incidents {
		total += n
		kinds = append(kinds, k)
	}
	switch {
	case s.IncidentsError != "":
		fmt.Fprintf(&b, "Incidents: unreadable (%s)\n", s.IncidentsError)
	case total == 0:
		// Nothing to report; the line appears when there is.
	default:
		sort.Strings(kinds)
		parts := make([]string, len(kinds))
		for i, k := range kinds {
			parts[i] = fmt.Sprintf("%d %s", s.Incidents[k], k)
		}
		fmt.Fprintf(&b, "Incidents: %d in the last 24h (%s); see joshbot incidents list\n", total, strings.Join(parts, ", "))
	}
	for _, pr := range s.Problems {
		fmt.Fprintf(&b, "problem [%s]: %s\n", pr.Code, pr.Message)
	}
	if s.Ready {
		b.WriteString("Ready: joshbot would start.\n")
	} else {
		b.WriteString("Not ready: joshbot would not start with this config.\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ConfigList is the report of `joshbot configure --list`: every setting
// with its effective value and where the value comes from.
type ConfigList struct {
	SchemaVersion int           `json:"schema_version"`
	Config        string        `json:"config"`
	Settings      []ConfigEntry `json:"settings"`
}

// ConfigEntry is one setting, by its dotted key.
type ConfigEntry struct {
	Key string `json:"key"`
	// Value is the effective value as JSON text; a credential is shown as
	// "(set)" or "(unset)", never itself.
	Value string `json:"value"`
	// Source is default, file, profile or environment (a JOSHBOT_ override,
	// or the variable an api_key_env names).
	Source string `json:"source"`
}

// WriteText renders the report for a person.
func (l *ConfigList) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Config: %s\n\n", l.Config)
	tw := newTable(&b)
	fmt.Fprintln(tw, "KEY\tVALUE\tSOURCE")
	for _, e := range l.Settings {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", e.Key, e.Value, e.Source)
	}
	tw.Flush()
	_, err := io.WriteString(w, b.String())
	return err
}

// AuthStatus is the report of `joshbot auth status`: where each
// provider's credential comes from and whether it is present.
type AuthStatus struct {
	SchemaVersion int         `json:"schema_version"`
	Config        string      `json:"config"`
	Providers     []AuthEntry `json:"providers"`
	Problems      []Problem   `json:"problems"`
}

// AuthEntry is one provider's credential.
type AuthEntry struct {
	Provider string `json:"provider"`
	// Used is true when the model chain uses this provider.
	Used       bool       `json:"used"`
	Credential Credential `json:"credential"`
	// Set is true when the credential is present.
	Set bool `json:"set"`
}

// WriteText renders the report for a person.
func (a *AuthStatus) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Config: %s\n\n", a.Config)
	tw := newTable(&b)
	fmt.Fprintln(tw, "PROVIDER\tIN USE\tCREDENTIAL\tSTATE")
	for _, p := range a.Providers {
		used, state := "no", "missing"
		if p.Used {
			used = "yes"
		}
		if p.Set {
			state = "present"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", p.Provider, used, p.Credential, state)
	}
	tw.Flush()
	for _, pr := range a.Problems {
		fmt.Fprintf(&b, "problem [%s]: %s\n", pr.Code, pr.Message)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// TuningStatus is the report of `joshbot tuning status`.
type TuningStatus struct {
	SchemaVersion int              `json:"schema_version"`
	Enabled       bool             `json:"enabled"`
	MaxBump       string           `json:"max_bump"`
	Step          string           `json:"step"`
	Cooldown      string           `json:"cooldown"`
	Operations    []TunedOperation `json:"operations"`
}

// TunedOperation is one tuned operation.
type TunedOperation struct {
	Operation string `json:"operation"`
	// Configured is the budget from the config (or the tool's default).
	Configured string `json:"configured"`
	// Bump is the raise in the overlay; Effective is what a start uses
	// (Configured alone while tuning is off).
	Bump      string `json:"bump"`
	Effective string `json:"effective"`
	// ChangedAt is the last change, RFC 3339 UTC; empty when none.
	ChangedAt string `json:"changed_at,omitempty"`
	// Timeouts and Successes count the events log.
	Timeouts  int `json:"timeouts"`
	Successes int `json:"successes"`
}

// WriteText renders the report for a person.
func (t *TuningStatus) WriteText(w io.Writer) error {
	var b strings.Builder
	state := "off (tuning.enabled is false: budgets are the config's)"
	if t.Enabled {
		state = fmt.Sprintf("on: raises of %s up to %s, at most one per %s", t.Step, t.MaxBump, t.Cooldown)
	}
	fmt.Fprintf(&b, "Tuning: %s\n\n", state)
	tw := newTable(&b)
	fmt.Fprintln(tw, "OPERATION\tCONFIGURED\tRAISE\tEFFECTIVE\tTIMEOUTS\tSUCCESSES\tCHANGED")
	for _, o := range t.Operations {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%s\n", o.Operation, o.Configured, o.Bump, o.Effective, o.Timeouts, o.Successes, dash(o.ChangedAt))
	}
	tw.Flush()
	_, err := io.WriteString(w, b.String())
	return err
}
