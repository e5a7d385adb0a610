package output

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// SkillList is the report of skills list.
type SkillList struct {
	SchemaVersion int `json:"schema_version"`
	// Skills are sorted by name.
	Skills []SkillItem `json:"skills"`
}

// SkillItem is one skill and whether it may be used.
type SkillItem struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Source is "bundled" or "workspace".
	Source string `json:"source"`
	// Path is the file, workspace-relative for workspace skills.
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	// State is "bundled", "trusted", "untrusted" or "broken".
	State   string `json:"state"`
	Trusted bool   `json:"trusted"`
	// Problem is why the file is not a usable skill; empty when it is.
	Problem string `json:"problem,omitempty"`
}

// WriteText renders the list for a person.
func (l *SkillList) WriteText(w io.Writer) error {
	var b strings.Builder
	if len(l.Skills) == 0 {
		b.WriteString("No skills.\n")
	}
	for _, s := range l.Skills {
		fmt.Fprintf(&b, "%-24s %-9s %s\n", s.Name, s.State, s.Description)
		if s.Problem != "" {
			fmt.Fprintf(&b, "%-24s           problem: %s\n", "", s.Problem)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// IncidentList is the report of incidents list.
type IncidentList struct {
	SchemaVersion int `json:"schema_version"`
	// Incidents are oldest first.
	Incidents []IncidentItem `json:"incidents"`
}

// IncidentItem is one recorded turn failure.
type IncidentItem struct {
	Time time.Time `json:"time"`
	// Kind is turn_timeout, llm_failure or stream_died.
	Kind       string `json:"kind"`
	Session    string `json:"session,omitempty"`
	Provider   string `json:"provider,omitempty"`
	Model      string `json:"model,omitempty"`
	Iterations int    `json:"iterations"`
	ToolCalls  int    `json:"tool_calls"`
	// Error is the failure, on one line, redacted when it was recorded.
	Error string `json:"error,omitempty"`
}

// WriteText renders the list for a person, times in the local zone.
func (l *IncidentList) WriteText(w io.Writer) error {
	var b strings.Builder
	if len(l.Incidents) == 0 {
		b.WriteString("No incidents recorded.\n")
	}
	for _, inc := range l.Incidents {
		fmt.Fprintf(&b, "%s  %-12s  %-20s  iterations=%d tool_calls=%d  %s\n",
			inc.Time.Local().Format(time.DateTime), inc.Kind, inc.Session, inc.Iterations, inc.ToolCalls, inc.Error)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// IncidentSummary is the report of incidents summary.
type IncidentSummary struct {
	SchemaVersion int `json:"schema_version"`
	// WindowHours is the span of the Recent counts.
	WindowHours int `json:"window_hours"`
	// Kinds are the most frequent first.
	Kinds []IncidentKind `json:"kinds"`
}

// IncidentKind counts one kind of incident.
type IncidentKind struct {
	Kind string `json:"kind"`
	// Total counts every record; Recent those in the window.
	Total  int       `json:"total"`
	Recent int       `json:"recent"`
	Last   time.Time `json:"last"`
}

// WriteText renders the summary for a person.
func (s *IncidentSummary) WriteText(w io.Writer) error {
	var b strings.Builder
	if len(s.Kinds) == 0 {
		b.WriteString("No incidents recorded.\n")
	}
	for _, k := range s.Kinds {
		fmt.Fprintf(&b, "%-12s  %4d total  %4d in %dh  last %s\n", k.Kind, k.Total, k.Recent, s.WindowHours, k.Last.Local().Format(time.DateTime))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
