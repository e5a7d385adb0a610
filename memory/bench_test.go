package memory

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// benchMessages builds a conversation with a realistic mix of roles, tool
// calls and message sizes.
func benchMessages(n int) []Message {
	ts := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	text := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 4)
	msgs := make([]Message, 0, n)
	for i := range n {
		m := Message{Time: ts.Add(time.Duration(i) * time.Second)}
		switch i % 4 {
		case 0:
			m.Role, m.Content = "user", text
		case 1:
			m.Role = "assistant"
			m.ToolCalls = []ToolCall{{ID: fmt.Sprint("call_", i), Name: "read_file", Arguments: `{"path":"notes/todo.md"}`}}
		case 2:
			m.Role, m.ToolCallID, m.Name, m.Content = "tool", fmt.Sprint("call_", i-1), "read_file", text+text
		case 3:
			m.Role, m.Content = "assistant", text
		}
		msgs = append(msgs, m)
	}
	return msgs
}

func BenchmarkLoad10k(b *testing.B) {
	dir := b.TempDir()
	s, err := NewStore(dir)
	if err != nil {
		b.Fatal(err)
	}
	if err := s.Save(&Session{Key: "api:bench", Messages: benchMessages(10_000)}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		sess, err := s.Load("api:bench")
		if err != nil || len(sess.Messages) != 10_000 {
			b.Fatalf("loaded %d messages, err %v", len(sess.Messages), err)
		}
	}
}

func BenchmarkSave(b *testing.B) {
	s, err := NewStore(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	sess := &Session{Key: "api:bench", Messages: benchMessages(200)}
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Save(sess); err != nil {
			b.Fatal(err)
		}
	}
}
