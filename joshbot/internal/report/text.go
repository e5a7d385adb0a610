package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/joshbot/joshbot/joshbot/internal/output"
	"github.com/joshbot/joshbot/joshbot/internal/redact"
	"github.com/joshbot/joshbot/memory"
)

// MessageLine renders one message of a session on one line.
func MessageLine(m *memory.Message) string {
	item := MessageItem(m)
	return item.Line()
}

// MessageItem is m as the reports' documents hold it, not yet redacted.
func MessageItem(m *memory.Message) output.MessageItem {
	item := output.MessageItem{Role: m.Role, Name: m.Name, Summary: m.Kind == memory.KindCompaction, Content: m.Content}
	if !m.Time.IsZero() {
		item.Time = m.Time.UTC()
	}
	for _, c := range m.ToolCalls {
		item.ToolCalls = append(item.ToolCalls, output.ToolCallItem{Name: c.Name, Arguments: c.Arguments})
	}
	return item
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

// MemoryStatus is the long-term memory's state as a document: file sizes,
// session memories, dream mode, what waits to be consolidated, and where
// each of keys' learned facts go. Paths are redacted.
func MemoryStatus(lt *memory.LongTerm, keys []string) (*output.MemoryReport, error) {
	ds, err := lt.DreamStatus()
	if err != nil {
		return nil, err
	}
	size := func(p string) *int64 {
		fi, err := os.Stat(p)
		if err != nil {
			return nil
		}
		n := fi.Size()
		return &n
	}
	sessionFiles, _ := filepath.Glob(filepath.Join(lt.SessionDir(), "*.md"))
	doc := &output.MemoryReport{
		SchemaVersion: output.SchemaVersion, Workspace: redact.String(lt.Dir()),
		MemoryBytes: size(filepath.Join(lt.Dir(), memory.MemoryFileName)), MemoryLimitBytes: int64(lt.MaxBytes()),
		SessionMemories: len(sessionFiles), SessionMemoryDir: redact.String(lt.SessionDir()),
		HistoryBytes: size(lt.HistoryPath()),
		Dream: output.DreamReport{Mode: ds.Mode, PendingTurns: ds.RawRecords, PendingBytes: ds.RawBytes, Interrupted: ds.Interrupted,
			Insights: ds.Insights, Runs: ds.Batches, LastRun: ds.LastRun.UTC()},
		Scopes: []output.MemoryScope{},
	}
	if ds.LastRun.IsZero() {
		doc.Dream.LastRun = time.Time{}
	}
	for _, k := range keys {
		item := output.MemoryScope{Session: k}
		sc := lt.ScopeOf(k)
		p, err := lt.FactsPath(sc)
		switch {
		case err != nil:
			item.Problem = err.Error()
		case sc == memory.SharedScope:
			item.FactsFile, item.Scope = redact.String(p), "shared"
		case sc == k:
			item.FactsFile, item.Scope = redact.String(p), "own"
		default:
			item.FactsFile, item.Scope = redact.String(p), sc
		}
		doc.Scopes = append(doc.Scopes, item)
	}
	return doc, nil
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
