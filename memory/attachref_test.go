package memory

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

func TestAttachmentRefsRoundTripAndOldLinesLoad(t *testing.T) {
	s := newTestStore(t)
	refs := []AttachmentRef{
		{Kind: AttachmentImage, Type: "image/png", Size: 120 << 10, SHA256: strings.Repeat("ab", 32)},
		{Kind: AttachmentPDF, Type: "application/pdf", Size: 3000, SHA256: strings.Repeat("cd", 32), Label: "report.pdf"},
	}
	msgs := []Message{
		{Role: "user", Content: "what is in these?", Attachments: refs},
		{Role: "assistant", Content: "a cat and a report"},
	}
	if err := s.Save(&Session{Key: "telegram:7", Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load("telegram:7")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Messages, msgs) {
		t.Fatalf("messages differ:\n got %+v\nwant %+v", got.Messages, msgs)
	}
	path, _ := s.Path("telegram:7")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if !strings.Contains(lines[0], `"attachments":[{"kind":"image","type":"image/png","size":122880,"sha256":"abab`) {
		t.Errorf("refs not stored as expected: %s", lines[0])
	}
	if strings.Contains(lines[1], "attachments") {
		t.Errorf("a message without attachments writes the key: %s", lines[1])
	}

	// A session written before the field existed loads as it always did.
	old := `{"role":"user","content":"hi","ts":"2025-03-01T12:00:00Z"}` + "\n" + `{"role":"assistant","content":"hello"}` + "\n"
	if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err = s.Load("telegram:7")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Messages) != 2 || got.Messages[0].Attachments != nil || got.Messages[1].Content != "hello" {
		t.Fatalf("old session loaded as %+v", got.Messages)
	}
	if _, err := os.Stat(path + ".corrupt"); err == nil {
		t.Fatal("an old session line was quarantined")
	}
}
