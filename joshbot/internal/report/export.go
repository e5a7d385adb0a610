package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/joshbot/joshbot/joshbot/internal/redact"
	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/memory/atomicfile"
)

// ExportManifest is the JSON manifest of an export. Its fields are sorted
// maps and counts only, and there is no export-time clock, so an unchanged
// session always exports to the same bytes.
type ExportManifest struct {
	SchemaVersion   int            `json:"schema_version"`
	Session         string         `json:"session"`
	Transcript      string         `json:"transcript"`
	Source          ExportSource   `json:"source"`
	Messages        int            `json:"messages"`
	Roles           map[string]int `json:"roles"`
	ToolCalls       map[string]int `json:"tool_calls"`
	ToolResults     map[string]int `json:"tool_results"`
	Compacted       bool           `json:"compacted"`
	UnreadableLines int            `json:"unreadable_lines"`
}

// ExportSource names the session file an export was made from.
type ExportSource struct {
	File   string `json:"file"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// RenderExport builds the redacted Markdown transcript and the JSON
// manifest of snap, read from the session file named file.
func RenderExport(snap *memory.Snapshot, file string) (md, manifest []byte, err error) {
	base := strings.ReplaceAll(snap.Key, ":", "_")
	// A bug report describes the file as it is: the torn end of an
	// interrupted save is an unreadable line of it too.
	unreadable := snap.Unreadable
	if snap.Interrupted {
		unreadable++
	}
	man := ExportManifest{
		SchemaVersion: 1, Session: snap.Key, Transcript: base + ".md",
		Source:   ExportSource{File: file, Size: snap.Size, SHA256: snap.SHA256},
		Messages: len(snap.Messages), Roles: map[string]int{}, ToolCalls: map[string]int{}, ToolResults: map[string]int{},
		UnreadableLines: unreadable,
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Session %s\n\n", snap.Key)
	fmt.Fprintf(&b, "- Messages: %d\n- Source: %s, %d bytes, SHA-256 %s\n", len(snap.Messages), file, snap.Size, snap.SHA256)
	if unreadable > 0 {
		fmt.Fprintf(&b, "- Unreadable lines skipped: %d\n", unreadable)
	}
	for i := range snap.Messages {
		m := &snap.Messages[i]
		man.Roles[m.Role]++
		if m.Kind == memory.KindCompaction {
			man.Compacted = true
		}
		for _, c := range m.ToolCalls {
			man.ToolCalls[c.Name]++
		}
		if m.Role == "tool" {
			man.ToolResults[cmp.Or(m.Name, "(unnamed)")]++
		}
		title := m.Role
		if m.Kind == memory.KindCompaction {
			title = "summary of earlier messages"
		} else if m.Name != "" {
			title += " (" + m.Name + ")"
		}
		fmt.Fprintf(&b, "\n## %d. %s", i+1, title)
		if !m.Time.IsZero() {
			b.WriteString(" · " + m.Time.UTC().Format("2006-01-02 15:04:05 UTC"))
		}
		b.WriteString("\n\n")
		if m.Content != "" {
			b.WriteString(m.Content)
			b.WriteString("\n")
		}
		for _, c := range m.ToolCalls {
			fence := fenceFor(c.Arguments)
			fmt.Fprintf(&b, "\nTool call `%s` (id %s):\n\n%sjson\n%s\n%s\n", c.Name, c.ID, fence, c.Arguments, fence)
		}
	}
	md = []byte(redact.String(b.String()))
	// Every string field is built from the key, file names, roles and tool
	// names; they are passed through redaction too since a tool name is
	// chosen by a model.
	man.Session = redact.String(man.Session)
	man.ToolCalls = redactKeys(man.ToolCalls)
	man.ToolResults = redactKeys(man.ToolResults)
	manifest, err = json.MarshalIndent(man, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	return md, append(manifest, '\n'), nil
}

func redactKeys(m map[string]int) map[string]int {
	out := make(map[string]int, len(m))
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}) {
		out[redact.String(k)] += m[k]
	}
	return out
}

// fenceFor returns a backtick fence longer than any run of backticks in s.
func fenceFor(s string) string {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// WritePrivate writes b to name with mode 0600 durably through package
// atomicfile, so a failed export never leaves a partial file.
func WritePrivate(name string, b []byte) error {
	if err := atomicfile.WriteFile(name, b, 0o600); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return nil
}
