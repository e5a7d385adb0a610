package tools

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/joshbot/joshbot/memory"
)

func TestMemorySearchToolStaysInItsConversation(t *testing.T) {
	lt, err := memory.OpenLongTerm(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := lt.AppendHistory("telegram:1", "user: the boat is called Seagull"); err != nil {
		t.Fatal(err)
	}
	if err := lt.AppendHistory("telegram:2", "user: my boat is the Kestrel"); err != nil {
		t.Fatal(err)
	}
	reg := NewRegistry()
	if err := RegisterMemorySearch(reg, lt); err != nil {
		t.Fatal(err)
	}
	ctx := WithSessionKey(context.Background(), "telegram:1")
	out, err := reg.Execute(ctx, "memory_search", json.RawMessage(`{"query":"boat"}`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "Seagull") || strings.Contains(out, "Kestrel") {
		t.Errorf("output:\n%s", out)
	}
	// No conversation: only shared memory, so nothing here.
	out, err = reg.Execute(context.Background(), "memory_search", json.RawMessage(`{"query":"boat"}`))
	if err != nil || !strings.Contains(out, "No memories match") {
		t.Errorf("without a key: %q %v", out, err)
	}
	for _, tt := range []struct{ args, want string }{
		{`{}`, `missing required argument "query"`},
		{`{"query":"boat","limit":500}`, "limit must be between 1 and 50"},
		{`{"query":"the"}`, "no searchable words"},
	} {
		if _, err := reg.Execute(ctx, "memory_search", json.RawMessage(tt.args)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err %v, want %q", tt.args, err, tt.want)
		}
	}
}

func TestSessionSearchToolStaysInItsConversation(t *testing.T) {
	store, err := memory.NewStore(filepath.Join(t.TempDir(), "s"))
	if err != nil {
		t.Fatal(err)
	}
	ts := time.Date(2026, 3, 4, 5, 6, 0, 0, time.UTC)
	if _, err := store.Append("cli:me", memory.Message{Role: "user", Content: "Let's decide: we use PostgreSQL", Time: ts},
		memory.Message{Role: "assistant", Content: "Agreed, postgresql it is.", Time: ts.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Append("cli:other", memory.Message{Role: "user", Content: "postgresql password hunter2", Time: ts}); err != nil {
		t.Fatal(err)
	}
	reg := NewRegistry()
	if err := RegisterSessionSearch(reg, store, nil); err != nil {
		t.Fatal(err)
	}
	out, err := reg.Execute(WithSessionKey(context.Background(), "cli:me"), "session_search", json.RawMessage(`{"query":"POSTGRESQL"}`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "hunter2") {
		t.Fatal("found another conversation's message")
	}
	first := strings.Index(out, "Agreed")
	second := strings.Index(out, "we use PostgreSQL")
	if first < 0 || second < 0 || first > second || !strings.Contains(out, "[2026-03-04 05:07] assistant") {
		t.Errorf("output not newest first:\n%s", out)
	}
	if _, err := reg.Execute(context.Background(), "session_search", json.RawMessage(`{"query":"x"}`)); err == nil {
		t.Error("a call without a conversation succeeded")
	}
}

func TestFormatHitShortens(t *testing.T) {
	h := &memory.Hit{Message: memory.Message{Role: "tool", Name: "grep", Content: strings.Repeat("é", 100)}, Archived: true}
	got := formatHit(h, 11)
	if got != "tool (grep) {archived}: ééééé…" {
		t.Errorf("formatHit = %q", got)
	}
}
