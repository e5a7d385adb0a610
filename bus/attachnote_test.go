package bus

import "testing"

func TestTextWithAttachmentNotes(t *testing.T) {
	for _, tt := range []struct {
		m    Outbound
		want string
	}{
		{Outbound{Text: "hi"}, "hi"},
		{Outbound{Text: "report", Attachments: []Attachment{{Name: "r.pdf", Data: make([]byte, 2048), SourcePath: "out/r.pdf"}}},
			"report\n[attachment not delivered by this channel: r.pdf, 2.0 KiB, out/r.pdf]"},
		{Outbound{Attachments: []Attachment{{Name: "a", Data: []byte("xy"), SourcePath: "a"}}},
			"[attachment not delivered by this channel: a, 2 bytes, a]"},
	} {
		if got := tt.m.TextWithAttachmentNotes(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
}
