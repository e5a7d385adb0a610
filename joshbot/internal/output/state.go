package output

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// The documents of the commands that read joshbot's stored state: sessions,
// memory and scheduled jobs, and the version. Session text is redacted by
// the command that fills them in, since JSON does not pass through the
// redacting writer.

// SessionList is the report of sessions list.
type SessionList struct {
	SchemaVersion int `json:"schema_version"`
	// Sessions are the most recently updated first.
	Sessions []SessionItem `json:"sessions"`
}

// SessionItem is one stored session.
type SessionItem struct {
	Key string `json:"key"`
	// Messages counts the readable messages; null when the file could not
	// be read at all.
	Messages *int `json:"messages"`
	// Unreadable counts the lines that were skipped.
	Unreadable int `json:"unreadable"`
	// SizeBytes is the session file's size.
	SizeBytes int64 `json:"size_bytes"`
	// Updated is the file's modification time, in UTC.
	Updated time.Time `json:"updated"`
}

// WriteText renders the list as a table for a person.
func (l *SessionList) WriteText(w io.Writer) error {
	if len(l.Sessions) == 0 {
		_, err := io.WriteString(w, "No sessions yet.\n")
		return err
	}
	var b strings.Builder
	tw := newTable(&b)
	fmt.Fprintln(tw, "SESSION\tMESSAGES\tSIZE\tUPDATED")
	for _, s := range l.Sessions {
		stamp := s.Updated.UTC().Format(time.DateTime)
		if s.Messages == nil {
			fmt.Fprintf(tw, "%s\t?\t%d\t%s\n", s.Key, s.SizeBytes, stamp)
			continue
		}
		n := strconv.Itoa(*s.Messages)
		if s.Unreadable > 0 {
			n += fmt.Sprintf(" (+%d unreadable)", s.Unreadable)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.Key, n, HumanSize(s.SizeBytes), stamp)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// HumanSize is n bytes in B, KiB or MiB.
func HumanSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// MessageItem is one stored message, redacted.
type MessageItem struct {
	// Time is when it was stored; absent for old records without one.
	Time time.Time `json:"time,omitzero"`
	// Role is user, assistant, tool or system.
	Role string `json:"role"`
	// Name is the tool's name on a tool result.
	Name string `json:"name,omitempty"`
	// Summary is true for the summary compaction left in place of older
	// messages.
	Summary bool   `json:"summary,omitempty"`
	Content string `json:"content"`
	// ToolCalls are the tools an assistant message called.
	ToolCalls []ToolCallItem `json:"tool_calls,omitempty"`
}

// ToolCallItem is one tool call of an assistant message.
type ToolCallItem struct {
	Name string `json:"name"`
	// Arguments is the call's JSON arguments, as text.
	Arguments string `json:"arguments"`
}

// Line is the message on one line, as sessions show prints it.
func (m *MessageItem) Line() string {
	var b strings.Builder
	if !m.Time.IsZero() {
		b.WriteString("[" + m.Time.UTC().Format(time.DateTime) + "] ")
	}
	if m.Summary {
		b.WriteString("summary of earlier messages: ")
	} else {
		b.WriteString(m.Role)
		if m.Name != "" {
			b.WriteString(" (" + m.Name + ")")
		}
		b.WriteString(": ")
	}
	b.WriteString(m.Content)
	for _, c := range m.ToolCalls {
		fmt.Fprintf(&b, " [calls %s %s]", c.Name, c.Arguments)
	}
	return b.String()
}

// SessionShow is the report of sessions show.
type SessionShow struct {
	SchemaVersion int    `json:"schema_version"`
	Key           string `json:"key"`
	// Total counts the session's readable messages; Messages holds the
	// last of them (all, or --last).
	Total    int           `json:"total"`
	Messages []MessageItem `json:"messages"`
	// Unreadable counts the lines that were skipped.
	Unreadable int `json:"unreadable"`
}

// WriteText renders the messages one a line.
func (s *SessionShow) WriteText(w io.Writer) error {
	var b strings.Builder
	for i := range s.Messages {
		b.WriteString(s.Messages[i].Line() + "\n")
	}
	if s.Unreadable > 0 {
		fmt.Fprintf(&b, "(%d unreadable lines skipped; `joshbot sessions export` records them)\n", s.Unreadable)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// SessionSearch is the report of sessions search.
type SessionSearch struct {
	SchemaVersion int    `json:"schema_version"`
	Query         string `json:"query"`
	// Hits are the newest first.
	Hits []SearchHit `json:"hits"`
}

// SearchHit is one message that matched.
type SearchHit struct {
	Key string `json:"key"`
	// Archived is true for a message from the session's history archive.
	Archived bool        `json:"archived"`
	Message  MessageItem `json:"message"`
}

// maxHitLine bounds a search hit's text line.
const maxHitLine = 400

// WriteText renders the hits one a line, each clipped.
func (s *SessionSearch) WriteText(w io.Writer) error {
	var b strings.Builder
	if len(s.Hits) == 0 {
		b.WriteString("No matches.\n")
	}
	for i := range s.Hits {
		h := &s.Hits[i]
		where := h.Key
		if h.Archived {
			where += " (archive)"
		}
		fmt.Fprintf(&b, "%s  %s\n", where, clipLine(h.Message.Line(), maxHitLine))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// clipLine is s on one line, at most n bytes (never splitting a
// character), ending in … when cut.
func clipLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// MemoryReport is the report of memory status.
type MemoryReport struct {
	SchemaVersion int    `json:"schema_version"`
	Workspace     string `json:"workspace"`
	// MemoryBytes is MEMORY.md's size; null when the file is absent.
	MemoryBytes      *int64 `json:"memory_bytes"`
	MemoryLimitBytes int64  `json:"memory_limit_bytes"`
	// SessionMemories counts the per-session memory files in
	// SessionMemoryDir.
	SessionMemories  int    `json:"session_memories"`
	SessionMemoryDir string `json:"session_memory_dir"`
	// HistoryBytes is HISTORY.md's size; null when the file is absent.
	HistoryBytes *int64      `json:"history_bytes"`
	Dream        DreamReport `json:"dream"`
	// Scopes say, for each session, which fact file its learning goes to.
	Scopes []MemoryScope `json:"scopes"`
}

// DreamReport is the state of dream consolidation.
type DreamReport struct {
	Mode string `json:"mode"`
	// PendingTurns and PendingBytes are the recorded turns waiting to be
	// consolidated; Interrupted says a run was left unfinished.
	PendingTurns int   `json:"pending_turns"`
	PendingBytes int64 `json:"pending_bytes"`
	Interrupted  bool  `json:"interrupted"`
	Insights     int   `json:"insights"`
	Runs         int   `json:"runs"`
	// LastRun is the last completed run; absent when there was none.
	LastRun time.Time `json:"last_run,omitzero"`
}

// MemoryScope is where one session's learned facts go.
type MemoryScope struct {
	Session string `json:"session"`
	// FactsFile is the file; Scope is "shared", "own" (the session's
	// own) or the name of a scope several sessions share.
	FactsFile string `json:"facts_file"`
	Scope     string `json:"scope"`
	// Problem is why the file could not be named; empty when it could.
	Problem string `json:"problem,omitempty"`
}

// WriteText renders the status for a person.
func (m *MemoryReport) WriteText(w io.Writer) error {
	size := func(n *int64) string {
		if n == nil {
			return "absent"
		}
		return HumanSize(*n)
	}
	var b strings.Builder
	tw := newTable(&b)
	fmt.Fprintf(tw, "Workspace:\t%s\n", m.Workspace)
	fmt.Fprintf(tw, "MEMORY.md:\t%s (limit %s; the overflow is consolidated, never cut)\n", size(m.MemoryBytes), HumanSize(m.MemoryLimitBytes))
	fmt.Fprintf(tw, "Session memories:\t%d files in %s\n", m.SessionMemories, m.SessionMemoryDir)
	fmt.Fprintf(tw, "HISTORY.md:\t%s\n", size(m.HistoryBytes))
	fmt.Fprintf(tw, "Dream mode:\t%s\n", m.Dream.Mode)
	pending := fmt.Sprintf("%d turns (%s)", m.Dream.PendingTurns, HumanSize(m.Dream.PendingBytes))
	if m.Dream.Interrupted {
		pending += ", including an interrupted run that the next consolidation finishes"
	}
	fmt.Fprintf(tw, "Waiting to consolidate:\t%s\n", pending)
	fmt.Fprintf(tw, "Insights:\t%d from %d runs\n", m.Dream.Insights, m.Dream.Runs)
	last := "never"
	if !m.Dream.LastRun.IsZero() {
		last = m.Dream.LastRun.UTC().Format(time.DateTime) + " UTC"
	}
	fmt.Fprintf(tw, "Last consolidation:\t%s\n", last)
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(m.Scopes) > 0 {
		b.WriteString("\nWhere each session's learned facts go (and which its prompt shows):\n")
		tw = newTable(&b)
		for _, s := range m.Scopes {
			var where string
			switch {
			case s.Problem != "":
				where = "unknown: " + s.Problem
			case s.Scope == "shared":
				where = s.FactsFile + " (shared)"
			case s.Scope == "own":
				where = s.FactsFile + " (this session's own)"
			default:
				where = s.FactsFile + " (scope " + s.Scope + ", shared with its other sessions)"
			}
			fmt.Fprintf(tw, "  %s\t%s\n", s.Session, where)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// CronList is the report of cron list.
type CronList struct {
	SchemaVersion int `json:"schema_version"`
	// Jobs are the soonest first.
	Jobs []CronItem `json:"jobs"`
}

// CronItem is one scheduled job.
type CronItem struct {
	ID string `json:"id"`
	// Next is when it fires next.
	Next time.Time `json:"next"`
	// Every is the repeat interval as a Go duration ("24h0m0s"); empty
	// for a job that fires once.
	Every   string `json:"every,omitempty"`
	Session string `json:"session"`
	Message string `json:"message"`
}

// WriteText renders the jobs one a line, times in the local zone.
func (l *CronList) WriteText(w io.Writer) error {
	var b strings.Builder
	if len(l.Jobs) == 0 {
		b.WriteString("No jobs scheduled.\n")
	}
	for _, j := range l.Jobs {
		every := "once"
		if j.Every != "" {
			every = "every " + j.Every
		}
		fmt.Fprintf(&b, "%s  %s  %-10s  %-20s  %s\n", j.ID, j.Next.Local().Format(time.DateTime), every, j.Session, j.Message)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Version is the report of version.
type Version struct {
	SchemaVersion int    `json:"schema_version"`
	Version       string `json:"version"`
	// Go is the Go release the binary was built with.
	Go   string `json:"go"`
	OS   string `json:"os"`
	Arch string `json:"arch"`
}

// WriteText renders the version on one line.
func (v *Version) WriteText(w io.Writer) error {
	_, err := fmt.Fprintf(w, "joshbot %s (%s, %s/%s)\n", v.Version, v.Go, v.OS, v.Arch)
	return err
}
