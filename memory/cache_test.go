package memory

import (
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

// cacheCases are sessions whose cached form must equal what decoding the
// file gives: times in several zones and with a monotonic reading, empty
// and full slices, text that encoding escapes or cannot keep, and a
// message Load drops.
func cacheCases() map[string][]Message {
	now := time.Now() // carries a monotonic reading and the Local zone
	tokyo := time.FixedZone("JST", 9*3600)
	r := rand.New(rand.NewPCG(1, 2))
	var long []Message
	for i := range 300 {
		m := Message{Role: []string{"user", "assistant", "tool"}[i%3], Content: strings.Repeat("é<&>\"\\\n\t", r.IntN(20)), Time: now.Add(time.Duration(r.IntN(1e9)))}
		if i%5 == 1 {
			m.ToolCalls = []ToolCall{{ID: "c", Name: "read_file", Arguments: `{"path":"a"}`}}
		}
		if i%7 == 2 {
			m.Attachments = []AttachmentRef{{Kind: AttachmentImage, Type: "image/png", Size: 9, SHA256: "ab", Label: "x.png"}}
		}
		long = append(long, m)
	}
	return map[string][]Message{
		"times": {
			{Role: "user", Content: "local", Time: now},
			{Role: "assistant", Content: "utc", Time: now.UTC()},
			{Role: "user", Content: "tokyo", Time: now.In(tokyo)},
			{Role: "assistant", Content: "zero"},
		},
		"empty slices":  {{Role: "assistant", ToolCalls: []ToolCall{}, Attachments: []AttachmentRef{}, Time: now}},
		"invalid utf-8": {{Role: "user", Content: "bad \xff byte", Time: now}},
		"no role":       {{Role: "user", Content: "kept"}, {Content: "dropped by Load"}},
		"compaction":    {{Role: "system", Kind: KindCompaction, Content: "summary"}, {Role: "user", Content: "next"}},
		"long":          long,
	}
}

func TestCachedLoadEqualsDecodedLoad(t *testing.T) {
	for name, msgs := range cacheCases() {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			s, err := NewStore(dir)
			if err != nil {
				t.Fatal(err)
			}
			key := "cli:cache"
			if err := s.Save(&Session{Key: key, Messages: msgs}); err != nil {
				t.Fatal(err)
			}
			cold, err := NewStore(dir) // no cache entry: decodes the file
			if err != nil {
				t.Fatal(err)
			}
			want, err := cold.Load(key)
			if err != nil {
				t.Fatal(err)
			}
			for round := range 2 { // from Save's entry, then from Load's
				got, err := s.Load(key)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got.Messages, want.Messages) {
					t.Fatalf("round %d: cached load differs from decoding the file:\n got %#v\nwant %#v", round, got.Messages, want.Messages)
				}
			}
		})
	}
}

func TestCacheSeesOtherWritersAndKeepsCopiesApart(t *testing.T) {
	dir := t.TempDir()
	a, _ := NewStore(dir)
	b, _ := NewStore(dir) // another process, in effect
	key := "cli:two"
	calls := []ToolCall{{ID: "1", Name: "read_file", Arguments: "{}"}}
	if err := a.Save(&Session{Key: key, Messages: []Message{{Role: "assistant", ToolCalls: calls}}}); err != nil {
		t.Fatal(err)
	}
	calls[0].Name = "changed after Save"
	first, _ := a.Load(key)
	if first.Messages[0].ToolCalls[0].Name != "read_file" {
		t.Fatalf("the cache shares the saved session's slices: %+v", first.Messages[0])
	}
	first.Messages[0].ToolCalls[0].Name = "changed after Load"
	again, _ := a.Load(key)
	if again.Messages[0].ToolCalls[0].Name != "read_file" {
		t.Fatalf("the cache shares a loaded session's slices: %+v", again.Messages[0])
	}

	// Same length, other bytes, written by someone else.
	if err := b.Save(&Session{Key: key, Messages: []Message{{Role: "assistant", ToolCalls: []ToolCall{{ID: "1", Name: "list_dir", Arguments: "{}"}}}}}); err != nil {
		t.Fatal(err)
	}
	seen, _ := a.Load(key)
	if seen.Messages[0].ToolCalls[0].Name != "list_dir" {
		t.Fatalf("a write by another store was not seen: %+v", seen.Messages[0])
	}
	// Removed behind the cache's back.
	path, _ := a.Path(key)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if gone, _ := a.Load(key); len(gone.Messages) != 0 {
		t.Fatalf("a removed session loaded as %+v", gone.Messages)
	}
}

func TestCacheBounds(t *testing.T) {
	c := newSessionCache()
	for i := range cacheMaxEntries + 5 {
		c.put(strings.Repeat("k", i+1), uint64(i), 10, []Message{{Role: "user"}}, fileStamp{}, false)
	}
	if len(c.entries) != cacheMaxEntries {
		t.Errorf("%d entries, bound %d", len(c.entries), cacheMaxEntries)
	}
	if _, ok := c.get("k", 0, 10); ok {
		t.Error("the least recently used entry was kept")
	}
	c.put("big", 1, cacheMaxBytes+1, nil, fileStamp{}, false)
	if _, ok := c.get("big", 1, cacheMaxBytes+1); ok {
		t.Error("an entry over the byte bound was cached")
	}
	c.put("half1", 1, cacheMaxBytes/2, nil, fileStamp{}, false)
	c.put("half2", 2, cacheMaxBytes/2, nil, fileStamp{}, false)
	c.put("half3", 3, cacheMaxBytes/2, nil, fileStamp{}, false)
	if c.bytes > cacheMaxBytes {
		t.Errorf("%d bytes cached, bound %d", c.bytes, cacheMaxBytes)
	}
	if _, ok := c.get("half1", 1, cacheMaxBytes/2); ok {
		t.Error("the oldest entry survived the byte bound")
	}
}
