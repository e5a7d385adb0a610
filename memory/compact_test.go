package memory

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCompactionCut(t *testing.T) {
	u := Message{Role: "user"}
	a := Message{Role: "assistant"}
	call := Message{Role: "assistant", ToolCalls: []ToolCall{{ID: "c"}}}
	tool := Message{Role: "tool", ToolCallID: "c"}
	rec := Message{Role: "system", Kind: KindCompaction}
	for _, tt := range []struct {
		name string
		msgs []Message
		keep int
		want int
	}{
		{"empty", nil, 6, 0},
		{"too short", []Message{u, a, u, a, u}, 6, 0},
		{"plain", []Message{u, a, u, a, u, a, u, a, u, a, u}, 6, 4},
		{"keep zero cuts at the turn", []Message{u, a, u, a, u}, 0, 4},
		{"turn in progress with tools", []Message{u, a, u, a, u, a, u, a, u, call, tool, a}, 6, 2},
		{"never starts at a tool result", []Message{u, a, u, call, tool, tool, a, u, a, u, a, u}, 6, 3},
		{"walks back over results", []Message{u, call, tool, tool, tool, tool, a, u, a, u, a, u}, 6, 1},
		{"record stays", []Message{rec, u, a, u, a, u, a, u, a, u}, 6, 3},
		{"record only", []Message{rec, u}, 6, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := CompactionCut(tt.msgs, tt.keep)
			if got != tt.want {
				t.Fatalf("CompactionCut = %d, want %d", got, tt.want)
			}
			if got < len(tt.msgs) && got > 0 && tt.msgs[got].Role == "tool" {
				t.Fatalf("cut %d starts the kept part at a tool result", got)
			}
		})
	}
}

func TestCompactArchivesFirst(t *testing.T) {
	s := newTestStore(t)
	msgs := sampleMessages()[1:] // user, call, tool, assistant
	for i := range 3 {
		msgs = append(msgs, Message{Role: "user", Content: "again " + strings.Repeat("x", i)}, Message{Role: "assistant", Content: "ok"})
	}
	msgs = append(msgs, Message{Role: "user", Content: "now"})
	sess := &Session{Key: "api:c", Messages: msgs}
	if err := s.Save(sess); err != nil {
		t.Fatal(err)
	}
	cut := CompactionCut(sess.Messages, KeepRecent)
	if cut != 4 {
		t.Fatalf("cut = %d", cut)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := s.Compact(sess, cut, "they asked for 2+2", at); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load("api:c")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Messages) != 1+len(msgs)-4 || got.Messages[0].Kind != KindCompaction || got.Messages[0].Content != "they asked for 2+2" {
		t.Fatalf("after compaction: %+v", got.Messages)
	}
	ap, _ := s.ArchivePath("api:c")
	if !strings.HasSuffix(ap, "api_c.history.jsonl") {
		t.Errorf("archive path %s", ap)
	}
	arch, err := readSnapshot(ap)
	if err != nil {
		t.Fatal(err)
	}
	if len(arch.Messages) != 4 || arch.Messages[1].ToolCalls[0].ID != "c1" || arch.Messages[2].ToolCallID != "c1" {
		t.Fatalf("archive holds %+v", arch.Messages)
	}
	meta, err := s.LoadMeta("api:c")
	if err != nil || meta.Compactions != 1 || meta.ArchivedMessages != 4 || !meta.LastCompaction.Equal(at) {
		t.Fatalf("meta %+v, %v", meta, err)
	}

	// A second compaction keeps one record and archives only new messages.
	got.Messages = append(got.Messages, Message{Role: "assistant", Content: "a"}, Message{Role: "user", Content: "b"},
		Message{Role: "assistant", Content: "c"}, Message{Role: "user", Content: "d"})
	cut = CompactionCut(got.Messages, KeepRecent)
	if err := s.Compact(got, cut, "second", at); err != nil {
		t.Fatal(err)
	}
	if got.Messages[0].Content != "second" || got.Messages[1].Kind != "" {
		t.Fatalf("second compaction: %+v", got.Messages[:2])
	}
	arch, _ = readSnapshot(ap)
	for _, m := range arch.Messages {
		if m.Kind == KindCompaction {
			t.Fatal("a compaction record was archived")
		}
	}
}

func TestCompactAbandonedWhenArchiveFails(t *testing.T) {
	s := newTestStore(t)
	msgs := []Message{{Role: "user", Content: "1"}, {Role: "assistant", Content: "2"}, {Role: "user", Content: "3"}}
	sess := &Session{Key: "api:d", Messages: msgs}
	if err := s.Save(sess); err != nil {
		t.Fatal(err)
	}
	ap, _ := s.ArchivePath("api:d")
	// A directory where the archive should be makes the append fail.
	if err := os.Mkdir(ap, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := s.Compact(sess, 2, "summary", time.Now()); err == nil || !strings.Contains(err.Error(), "abandoned") {
		t.Fatalf("Compact err = %v", err)
	}
	got, _ := s.Load("api:d")
	if len(got.Messages) != 3 || len(sess.Messages) != 3 {
		t.Fatalf("session changed although the archive failed: %+v", got.Messages)
	}
	if err := s.Compact(sess, 2, "s", time.Now()); err == nil {
		t.Fatal("second Compact succeeded")
	}
	if err := s.Compact(&Session{Key: "api:d", Messages: []Message{{Role: "user"}, {Role: "assistant", ToolCalls: []ToolCall{{ID: "x"}}}, {Role: "tool"}}}, 2, "s", time.Now()); err == nil {
		t.Fatal("a cut before a tool result was accepted")
	}
}

func TestMetaRoundTripAndCorruptSidecar(t *testing.T) {
	s := newTestStore(t)
	logs := captureLogs(t)
	if err := s.UpdateMeta("telegram:1", func(m *Meta) { m.ModelOverride = "gpt-x"; m.Turns++ }); err != nil {
		t.Fatal(err)
	}
	m, err := s.LoadMeta("telegram:1")
	if err != nil || m.ModelOverride != "gpt-x" || m.Turns != 1 {
		t.Fatalf("meta %+v %v", m, err)
	}
	p, _ := s.MetaPath("telegram:1")
	checkMode(t, p, 0o600)
	if err := os.WriteFile(p, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	m, err = s.LoadMeta("telegram:1")
	if err != nil || *m != (Meta{}) {
		t.Fatalf("corrupt sidecar gave %+v %v", m, err)
	}
	kept, err := os.ReadFile(p + ".corrupt")
	if err != nil || !strings.Contains(string(kept), "{not json") {
		t.Fatalf("corrupt bytes not kept: %q %v", kept, err)
	}
	if n := strings.Count(logs.String(), "metadata is unreadable"); n != 1 {
		t.Errorf("logged %d warnings, want 1:\n%s", n, logs)
	}
	if _, err := s.LoadMeta("telegram:1"); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(logs.String(), "metadata is unreadable"); n != 1 {
		t.Errorf("second load logged again")
	}
	if _, err := s.LoadMeta("../x"); !errors.Is(err, ErrInvalidKey) {
		t.Errorf("LoadMeta(../x) = %v", err)
	}
}

func TestResetRemoveReadSearch(t *testing.T) {
	s := newTestStore(t)
	t0 := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	if err := s.Save(&Session{Key: "api:a", Messages: []Message{
		{Role: "user", Content: "We DECIDED on blue", Time: t0},
		{Role: "assistant", ToolCalls: []ToolCall{{ID: "1", Name: "grep", Arguments: `{"q":"decided"}`}}, Time: t0.Add(time.Minute)},
	}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Save(&Session{Key: "api:b", Messages: []Message{{Role: "user", Content: "nothing decided yet", Time: t0.Add(time.Hour)}}}); err != nil {
		t.Fatal(err)
	}
	hits, err := s.Search("decided", nil)
	if err != nil || len(hits) != 3 {
		t.Fatalf("hits %+v %v", hits, err)
	}
	if hits[0].Key != "api:b" || hits[1].Message.ToolCalls == nil {
		t.Errorf("not newest first: %+v", hits)
	}
	if hits, _ := s.Search("DECIDED", &SearchOptions{Keys: []string{"api:a"}, Limit: 1}); len(hits) != 1 || hits[0].Key != "api:a" {
		t.Errorf("restricted search %+v", hits)
	}
	if _, err := s.Search("  ", nil); err == nil {
		t.Error("empty query accepted")
	}

	if err := s.UpdateMeta("api:a", func(m *Meta) { m.Personality = "pirate" }); err != nil {
		t.Fatal(err)
	}
	if err := s.Reset("api:a"); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Load("api:a"); len(got.Messages) != 0 {
		t.Fatalf("reset left %d messages", len(got.Messages))
	}
	if m, _ := s.LoadMeta("api:a"); m.Personality != "" || m.ArchivedMessages != 2 {
		t.Errorf("meta after reset %+v", m)
	}
	// The archive is still searchable.
	if hits, _ := s.Search("blue", nil); len(hits) != 1 || !hits[0].Archived {
		t.Errorf("archived hit %+v", hits)
	}

	p, _ := s.Path("api:b")
	if err := os.WriteFile(p, []byte(jsonLine(t, Message{Role: "user", Content: "x"})+"torn{"), 0o600); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(p)
	snap, err := s.Read("api:b")
	if err != nil || snap.Unreadable != 0 || !snap.Interrupted || len(snap.Messages) != 1 || snap.Size != int64(len(before)) || len(snap.SHA256) != 64 {
		t.Fatalf("snapshot %+v %v", snap, err)
	}
	if after, _ := os.ReadFile(p); string(after) != string(before) {
		t.Error("Read modified the session file")
	}

	list, err := s.List()
	if err != nil || len(list) != 2 {
		t.Fatalf("list %+v %v", list, err)
	}
	if err := s.Remove("api:a"); err != nil {
		t.Fatal(err)
	}
	for _, n := range dirNames(t, s.Dir()) {
		if strings.HasPrefix(n, "api_a") {
			t.Errorf("Remove left %s", n)
		}
	}
	if _, err := os.Stat(filepath.Join(s.Dir(), ".api_a.lock")); !os.IsNotExist(err) {
		t.Errorf("lock file left: %v", err)
	}
}
