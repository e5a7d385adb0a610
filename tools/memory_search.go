package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/sandbox/fence"
)

// maxSearchResults bounds the limit argument of the search tools.
const maxSearchResults = 50

// RegisterMemorySearch registers the memory_search tool on reg. It searches
// the long-term memory lt as seen by the conversation making the call (see
// [WithSessionKey]): the shared MEMORY.md, the learned facts of the
// conversation's scope (memory.LongTerm.ScopeOf: its person's, or its own),
// HISTORY.md entries of that scope or shared ones, and its dream insights.
// Nothing another person's conversations learned is visible.
func RegisterMemorySearch(reg *Registry, lt *memory.LongTerm) error {
	if reg == nil || lt == nil {
		return errors.New("tools: register memory_search: nil registry or memory")
	}
	return reg.Register(&memorySearchTool{lt: lt})
}

type memorySearchTool struct{ lt *memory.LongTerm }

func (*memorySearchTool) Name() string { return "memory_search" }

func (*memorySearchTool) Description() string {
	return "Search long-term memory (remembered facts, the history log of past conversations, and recurring topics) by keywords. " +
		"Results are ranked by relevance. Use it to recall something from an earlier conversation that is not in the current context."
}

func (*memorySearchTool) Parameters() json.RawMessage {
	return memorySearchSchema.get()
}

type searchArgs struct {
	Query string `json:"query"`
	Limit int    `json:"limit"`
}

// memorySearchArgs and sessionSearchArgs are searchArgs with the words
// each tool's schema shows the model; a tool decodes into its own type.
type (
	memorySearchArgs struct {
		Query string `json:"query" jsonschema:"Keywords to look for, e.g. \"kitchen paint colour\"."`
		Limit int    `json:"limit,omitempty" jsonschema:"Most results to return, 1-50. Default 8."`
	}
	sessionSearchArgs struct {
		Query string `json:"query" jsonschema:"Text to look for, matched case-insensitively as a substring."`
		Limit int    `json:"limit,omitempty" jsonschema:"Most messages to return, 1-50. Default 10."`
	}
)

var (
	memorySearchSchema  = lazySchema{of: (*memorySearchArgs)(nil)}
	sessionSearchSchema = lazySchema{of: (*sessionSearchArgs)(nil)}
)

func (a *searchArgs) check(tool string, def int) error {
	if strings.TrimSpace(a.Query) == "" {
		return missing(tool, "query")
	}
	switch {
	case a.Limit == 0:
		a.Limit = def
	case a.Limit < 0 || a.Limit > maxSearchResults:
		return errorf("%s: limit must be between 1 and %d, got %d", tool, maxSearchResults, a.Limit)
	}
	return nil
}

func (t *memorySearchTool) Execute(ctx context.Context, raw json.RawMessage) (string, error) {
	var a memorySearchArgs
	if err := decodeArgs(t.Name(), raw, &a); err != nil {
		return "", err
	}
	args := searchArgs(a)
	if err := args.check(t.Name(), memory.DefaultMemorySearchLimit); err != nil {
		return "", err
	}
	key := SessionKeyFromContext(ctx)
	if key == "" {
		key = memory.SharedScope
	}
	res, err := t.lt.Search(key, args.Query, args.Limit)
	if err != nil {
		return "", errorf("memory_search: %w", err)
	}
	if len(res) == 0 {
		return fmt.Sprintf("No memories match %q.", args.Query), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d results for %q, best first:\n", len(res), args.Query)
	for i, r := range res {
		when := ""
		if !r.Time.IsZero() {
			when = " " + r.Time.UTC().Format("2006-01-02 15:04")
		}
		whose := "shared"
		if r.Scope != memory.SharedScope {
			whose = "session " + r.Scope
			if r.Scope == key || r.Scope == t.lt.ScopeOf(key) {
				whose += " (this conversation)"
			}
		}
		fmt.Fprintf(&b, "\n%d. [%s%s, %s, score %.2f]\n%s\n", i+1, r.Source, when, whose, r.Score,
			fence.Wrap("memory_search:"+r.Source+":"+whose, r.Text, &fence.Options{Origin: "stored memory, which earlier turns (and what they read) wrote"}))
	}
	return b.String(), nil
}

// RegisterSessionSearch registers the session_search tool on reg. It
// searches the transcripts of the person making the call (see
// [WithSessionKey]) on every channel, including the messages compaction
// moved to each session's archive, so "what did we decide about X" is
// answered word for word wherever it was said. scope maps a session key to
// its person's scope (memory.LongTerm.ScopeOf is one): every stored session
// with the caller's scope is searched, and no other. A nil scope searches
// the calling conversation alone. Found messages are fenced as untrusted:
// they hold what earlier turns read as well as what people said.
func RegisterSessionSearch(reg *Registry, store *memory.Store, scope func(key string) string) error {
	if reg == nil || store == nil {
		return errors.New("tools: register session_search: nil registry or store")
	}
	return reg.Register(&sessionSearchTool{store: store, scope: scope})
}

type sessionSearchTool struct {
	store *memory.Store
	scope func(key string) string
}

func (*sessionSearchTool) Name() string { return "session_search" }

func (*sessionSearchTool) Description() string {
	return "Search the full transcripts of your conversations with this person, on every channel and including parts that were summarized away, " +
		"for messages containing some text (case-insensitive). Returns the matching messages, newest first, with their conversation, time and speaker."
}

func (*sessionSearchTool) Parameters() json.RawMessage {
	return sessionSearchSchema.get()
}

// maxHitChars bounds one message in session_search output.
const maxHitChars = 600

// keys returns the sessions the caller key may search: its own, and every
// stored session of the same scope.
func (t *sessionSearchTool) keys(key string) ([]string, error) {
	keys := []string{key}
	if t.scope == nil {
		return keys, nil
	}
	all, err := t.store.Keys()
	if err != nil {
		return nil, err
	}
	mine := t.scope(key)
	for _, k := range all {
		if k != key && t.scope(k) == mine {
			keys = append(keys, k)
		}
	}
	return keys, nil
}

func (t *sessionSearchTool) Execute(ctx context.Context, raw json.RawMessage) (string, error) {
	var a sessionSearchArgs
	if err := decodeArgs(t.Name(), raw, &a); err != nil {
		return "", err
	}
	args := searchArgs(a)
	if err := args.check(t.Name(), 10); err != nil {
		return "", err
	}
	key := SessionKeyFromContext(ctx)
	if key == "" {
		return "", errors.New("session_search: this call belongs to no conversation, so there is no transcript to search")
	}
	keys, err := t.keys(key)
	if err != nil {
		return "", errorf("session_search: %w", err)
	}
	hits, err := t.store.Search(args.Query, &memory.SearchOptions{Keys: keys, Limit: args.Limit})
	if err != nil {
		return "", errorf("session_search: %w", err)
	}
	if len(hits) == 0 {
		return fmt.Sprintf("No message in your conversations with this person contains %q.", args.Query), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d messages contain %q, newest first:\n", len(hits), args.Query)
	for _, h := range hits {
		where := h.Key
		if h.Key == key {
			where += " (this conversation)"
		}
		fmt.Fprintf(&b, "\n[%s]\n%s\n", where, fence.Wrap("session_search:"+h.Key, formatHit(&h, maxHitChars),
			&fence.Options{Origin: "a stored transcript, holding what people said and what earlier turns read"}))
	}
	return b.String(), nil
}

// formatHit renders a session search hit as one block of text: time, role
// (and tool), whether it came from the archive, and the message, shortened
// to at most max bytes.
func formatHit(h *memory.Hit, max int) string {
	m := &h.Message
	var b strings.Builder
	if !m.Time.IsZero() {
		b.WriteString("[" + m.Time.UTC().Format("2006-01-02 15:04") + "] ")
	}
	b.WriteString(m.Role)
	if m.Name != "" {
		b.WriteString(" (" + m.Name + ")")
	}
	if h.Archived {
		b.WriteString(" {archived}")
	}
	b.WriteString(": ")
	text := m.Content
	for _, c := range m.ToolCalls {
		text += fmt.Sprintf(" [calls %s %s]", c.Name, c.Arguments)
	}
	b.WriteString(shorten(strings.TrimSpace(text), max))
	return b.String()
}

// shorten cuts s to at most max bytes on a rune boundary.
func shorten(s string, max int) string {
	if max <= 0 || len(s) <= max {
		return s
	}
	n := max
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
