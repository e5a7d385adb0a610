package report

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/joshbot/joshbot/joshbot/internal/redact"
	"github.com/joshbot/joshbot/memory"
)

// MessageLine renders one message of a session on one line.
func MessageLine(m *memory.Message) string {
	var b strings.Builder
	if !m.Time.IsZero() {
		b.WriteString("[" + m.Time.UTC().Format("2006-01-02 15:04:05") + "] ")
	}
	if m.Kind == memory.KindCompaction {
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

// ClipLine flattens s to one line of at most n bytes.
func ClipLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// WriteMemoryStatus writes the long-term memory's state for a person:
// file sizes, session memories, dream mode, what waits to be consolidated
// and the last consolidation; then, for each session in keys, the scope its
// learned facts go to and its prompt shows (memory.LongTerm.ScopeOf).
func WriteMemoryStatus(out io.Writer, lt *memory.LongTerm, keys []string) error {
	ds, err := lt.DreamStatus()
	if err != nil {
		return err
	}
	size := func(p string) string {
		fi, err := os.Stat(p)
		if err != nil {
			return "absent"
		}
		return HumanSize(fi.Size())
	}
	sessionFiles, _ := filepath.Glob(filepath.Join(lt.SessionDir(), "*.md"))
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "Workspace:\t%s\n", redact.String(lt.Dir()))
	fmt.Fprintf(w, "MEMORY.md:\t%s (limit %s; the overflow is consolidated, never cut)\n", size(filepath.Join(lt.Dir(), memory.MemoryFileName)), HumanSize(int64(lt.MaxBytes())))
	fmt.Fprintf(w, "Session memories:\t%d files in %s\n", len(sessionFiles), redact.String(lt.SessionDir()))
	fmt.Fprintf(w, "HISTORY.md:\t%s\n", size(lt.HistoryPath()))
	fmt.Fprintf(w, "Dream mode:\t%s\n", ds.Mode)
	pending := fmt.Sprintf("%d turns (%s)", ds.RawRecords, HumanSize(ds.RawBytes))
	if ds.Interrupted {
		pending += ", including an interrupted run that the next consolidation finishes"
	}
	fmt.Fprintf(w, "Waiting to consolidate:\t%s\n", pending)
	fmt.Fprintf(w, "Insights:\t%d from %d runs\n", ds.Insights, ds.Batches)
	last := "never"
	if !ds.LastRun.IsZero() {
		last = ds.LastRun.UTC().Format(time.DateTime) + " UTC"
	}
	fmt.Fprintf(w, "Last consolidation:\t%s\n", last)
	if err := w.Flush(); err != nil {
		return err
	}
	if len(keys) == 0 {
		return nil
	}
	fmt.Fprintln(out, "\nWhere each session's learned facts go (and which its prompt shows):")
	w = tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	for _, k := range keys {
		fmt.Fprintf(w, "  %s\t%s\n", k, ScopeName(lt, k))
	}
	return w.Flush()
}

// ScopeName describes the scope of session key in lt for a person: the
// fact file, and whose it is.
func ScopeName(lt *memory.LongTerm, key string) string {
	sc := lt.ScopeOf(key)
	p, err := lt.FactsPath(sc)
	if err != nil {
		return "unknown: " + err.Error()
	}
	p = redact.String(p)
	switch sc {
	case memory.SharedScope:
		return p + " (shared)"
	case key:
		return p + " (this session's own)"
	}
	return p + " (scope " + sc + ", shared with its other sessions)"
}
