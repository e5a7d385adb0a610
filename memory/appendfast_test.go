//go:build unix

package memory

import (
	"encoding/json"
	"os"
	"testing"
	"time"
)

// An append that encodes only the new messages must still notice any
// change to the earlier ones, however small, and rewrite the file: each
// edit below keeps the message count and adds one message, the shape of
// an append.
func TestAppendNoticesEveryEditOfEarlierMessages(t *testing.T) {
	t0 := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name string
		edit func(*Message)
	}{
		{"content", func(m *Message) { m.Content = "ONE" }},
		{"role", func(m *Message) { m.Role = "system" }},
		{"name", func(m *Message) { m.Name = "josh" }},
		{"kind", func(m *Message) { m.Kind = KindInterrupted }},
		{"time by a nanosecond", func(m *Message) { m.Time = m.Time.Add(time.Nanosecond) }},
		{"same instant, other zone", func(m *Message) { m.Time = m.Time.In(time.FixedZone("X", 3600)) }},
		{"time cleared", func(m *Message) { m.Time = time.Time{} }},
		{"tool call added", func(m *Message) { m.ToolCalls = []ToolCall{{ID: "c1", Name: "exec", Arguments: "{}"}} }},
		{"attachment added", func(m *Message) {
			m.Attachments = []AttachmentRef{{Kind: AttachmentImage, Type: "image/png", Size: 3, SHA256: "ab"}}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			s := mustStore(t, dir)
			sess := &Session{Key: "api:x", Messages: []Message{
				{Role: "user", Content: "one", Time: t0}, {Role: "assistant", Content: "two", Time: t0}}}
			if err := s.Save(sess); err != nil {
				t.Fatal(err)
			}
			c.edit(&sess.Messages[0])
			sess.Messages = append(sess.Messages, Message{Role: "user", Content: "three", Time: t0})
			if err := s.Save(sess); err != nil {
				t.Fatal(err)
			}
			got, err := mustStore(t, dir).Load("api:x")
			if err != nil {
				t.Fatal(err)
			}
			if w, g := encodeMessages(t, sess.Messages), encodeMessages(t, got.Messages); w != g {
				t.Fatalf("saved %s\nread back %s", w, g)
			}
		})
	}
}

// After appends that encode only the new messages, the cache's hash of
// the file is the hash of its bytes: the next Load is served from the
// cache, and the messages are those a cold Store decodes.
func TestAppendKeepsTheCacheHashTrue(t *testing.T) {
	dir := t.TempDir()
	s := mustStore(t, dir)
	sess := &Session{Key: "api:x", Messages: []Message{msg("user", "one")}}
	if err := s.Save(sess); err != nil {
		t.Fatal(err)
	}
	path, _ := s.Path(sess.Key)
	ino := inode(t, path)
	for i := range 5 {
		sess.Messages = append(sess.Messages, Message{Role: "assistant", Content: "answer", Time: time.Now()},
			Message{Role: "user", Content: "question", Time: time.Now()})
		if err := s.Stage(sess); err != nil {
			t.Fatal(err)
		}
		if err := s.Save(sess); err != nil {
			t.Fatal(err)
		}
		if inode(t, path) != ino {
			t.Fatalf("save %d rewrote the file instead of appending", i)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := s.cache.get(sess.Key, s.cache.sum(data), len(data)); !ok {
			t.Fatalf("save %d: the cached hash is not the file's", i)
		}
	}
	hot, err := s.Load(sess.Key)
	if err != nil {
		t.Fatal(err)
	}
	cold, err := mustStore(t, dir).Load(sess.Key)
	if err != nil {
		t.Fatal(err)
	}
	if encodeMessages(t, hot.Messages) != encodeMessages(t, cold.Messages) || len(cold.Messages) != 11 {
		t.Fatalf("cached %d messages, decoded %d", len(hot.Messages), len(cold.Messages))
	}
}

func encodeMessages(t *testing.T, msgs []Message) string {
	t.Helper()
	b, err := json.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
