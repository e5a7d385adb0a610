package memory

import (
	"strings"
	"testing"
)

// ownerScope treats "cli:*" and "telegram:1" as the operator, whose facts
// are MEMORY.md's; everyone else is their own scope, and "bad:x" maps to
// something that is no scope at all.
func ownerScope(key string) string {
	switch {
	case strings.HasPrefix(key, "cli:"), key == "telegram:1":
		return SharedScope
	case key == "bad:x":
		return "../escape"
	}
	return key
}

func TestScopeOf(t *testing.T) {
	plain := newLongTerm(t, nil)
	if got := plain.ScopeOf("telegram:1"); got != "telegram:1" {
		t.Errorf("without a resolver ScopeOf = %q, want the key", got)
	}
	l := newLongTerm(t, &LongTermOptions{Scope: ownerScope})
	for _, tt := range []struct{ key, want string }{
		{"cli:default", SharedScope},
		{"telegram:1", SharedScope},
		{"telegram:2", "telegram:2"},
		{"bad:x", "bad:x"}, // an invalid scope falls back to the session itself
	} {
		if got := l.ScopeOf(tt.key); got != tt.want {
			t.Errorf("ScopeOf(%q) = %q, want %q", tt.key, got, tt.want)
		}
	}
}

// TestSearchFollowsTheScope: a session sees its person's facts and the
// history entries of that person's other sessions, never a stranger's.
func TestSearchFollowsTheScope(t *testing.T) {
	l := newLongTerm(t, &LongTermOptions{Scope: ownerScope})
	if _, _, err := l.AddFacts(l.ScopeOf("telegram:1"), []string{"prefers oolong tea"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := l.AddFacts(l.ScopeOf("telegram:2"), []string{"prefers rooibos tea"}); err != nil {
		t.Fatal(err)
	}
	if err := l.AppendHistory("telegram:1", "talked about the kettle descaling"); err != nil {
		t.Fatal(err)
	}
	if err := l.AppendHistory("telegram:2", "talked about the kettle warranty"); err != nil {
		t.Fatal(err)
	}
	res, err := l.Search("cli:default", "tea kettle", 10)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, r := range res {
		texts = append(texts, r.Text)
	}
	all := strings.Join(texts, "|")
	if !strings.Contains(all, "oolong") || !strings.Contains(all, "descaling") {
		t.Errorf("the operator's CLI session misses what the operator said on Telegram: %q", all)
	}
	if strings.Contains(all, "rooibos") || strings.Contains(all, "warranty") {
		t.Errorf("the operator's CLI session sees a stranger's memory: %q", all)
	}
	res, err = l.Search("telegram:2", "tea kettle", 10)
	if err != nil {
		t.Fatal(err)
	}
	texts = texts[:0]
	for _, r := range res {
		texts = append(texts, r.Text)
	}
	all = strings.Join(texts, "|")
	if !strings.Contains(all, "rooibos") || !strings.Contains(all, "warranty") || strings.Contains(all, "descaling") {
		t.Errorf("stranger's search = %q, want their own facts and history and not the operator's history", all)
	}
}
