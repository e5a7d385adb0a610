package memory

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// A session line written by hand is byte for byte the line json.Encoder
// writes with HTML escaping off, for every field and every kind of text;
// a time encoding/json cannot write fails with encoding/json's error.
func TestEncodeLineIsEncodingJSONs(t *testing.T) {
	var ctl strings.Builder
	for b := range 0x20 {
		ctl.WriteByte(byte(b))
	}
	texts := []string{"", "plain", `"q" \ /`, ctl.String(), "\x7f", "<b>&amp;</b>", "bad \xff\xfe \xe2\x82",
		"a\u2028b\u2029c", "héllo ✓ 日本語 🙂", strings.Repeat("long ", 300)}
	zone := time.FixedZone("x", -(3*3600 + 30*60))
	times := []time.Time{{}, time.Now(), time.Date(2026, 1, 2, 3, 4, 5, 6, zone), time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC), time.Unix(0, 0)}
	var msgs []Message
	for i, s := range texts {
		m := Message{Role: s, Content: s, ToolCallID: s, Name: s, Kind: s, Time: times[i%len(times)]}
		if i%2 == 0 {
			m.ToolCalls = []ToolCall{{ID: s, Name: s, Arguments: s}, {}}
			m.Attachments = []AttachmentRef{{Kind: s, Type: s, Size: int64(i) * -12345678901, SHA256: s, Label: s}, {}}
		}
		msgs = append(msgs, m, Message{Role: "user", Content: s}, Message{})
	}
	for i := range msgs {
		var got, want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(&msgs[i]); err != nil {
			t.Fatal(err)
		}
		if err := encodeLine(&got, json.NewEncoder(&got), &msgs[i]); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Fatalf("message %d:\n got %s\nwant %s", i, got.Bytes(), want.Bytes())
		}
	}
	bad := Message{Role: "user", Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}
	var got bytes.Buffer
	err := encodeLine(&got, json.NewEncoder(&got), &bad)
	_, want := json.Marshal(&bad)
	if err == nil || want == nil || err.Error() != want.Error() || got.Len() != 0 {
		t.Fatalf("a year past 9999: %v and %q, want %v and nothing written", err, got.Bytes(), want)
	}
}
