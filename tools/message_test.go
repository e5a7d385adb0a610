package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/joshbot/joshbot/bus"
)

type recordingOutbox struct {
	mu  sync.Mutex
	got []bus.Outbound
}

func (o *recordingOutbox) PublishOutbound(_ context.Context, m bus.Outbound) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.got = append(o.got, m)
	return nil
}

func TestMessageAndSendFile(t *testing.T) {
	ws := t.TempDir()
	png := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{0}, 100)...)
	os.WriteFile(filepath.Join(ws, "pic.txt"), png, 0o600) // the name lies; the bytes decide
	os.WriteFile(filepath.Join(ws, "notes.md"), []byte("# notes\n"), 0o600)
	os.WriteFile(filepath.Join(ws, "big.bin"), make([]byte, 2048), 0o600)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o600)
	os.Symlink(filepath.Join(outside, "secret"), filepath.Join(ws, "link"))

	out := &recordingOutbox{}
	reg := NewRegistry()
	if err := RegisterMessaging(reg, out, ws, &MessagingOptions{MaxFileBytes: 1024}); err != nil {
		t.Fatal(err)
	}
	ctx := WithRecipient(context.Background(), Recipient{Channel: "telegram", ChatID: "42", SessionKey: "telegram:7"})

	for _, tt := range []struct {
		name, tool, args string
		ctx              context.Context
		wantErr          string
		wantMIME         string
	}{
		{"message", "message", `{"text":"working on it","chat_id":"999"}`, ctx, "", ""},
		{"image sniffed from bytes", "send_file", `{"path":"pic.txt","caption":"look"}`, ctx, "", "image/png"},
		{"text file", "send_file", `{"path":"notes.md"}`, ctx, "", "text/plain; charset=utf-8"},
		{"over cap", "send_file", `{"path":"big.bin"}`, ctx, "over the", ""},
		{"escape", "send_file", `{"path":"../x"}`, ctx, "outside the workspace", ""},
		{"symlink escape", "send_file", `{"path":"link"}`, ctx, "outside the workspace", ""},
		{"no recipient", "message", `{"text":"hi"}`, context.Background(), "no conversation", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := len(out.got)
			res, err := reg.Execute(tt.ctx, tt.tool, json.RawMessage(tt.args))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				if len(out.got) != before {
					t.Fatal("something was sent")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			m := out.got[len(out.got)-1]
			if m.Channel != "telegram" || m.ChatID != "42" {
				t.Fatalf("sent to %s/%s; the recipient must come from the context (result %q)", m.Channel, m.ChatID, res)
			}
			if tt.wantMIME != "" && (len(m.Attachments) != 1 || m.Attachments[0].MIME != tt.wantMIME) {
				t.Fatalf("attachments = %+v", m.Attachments)
			}
		})
	}
	if a := out.got[1].Attachments[0]; a.SourcePath != "pic.txt" || a.Name != "pic.txt" || !bytes.Equal(a.Data, png) || out.got[1].Text != "look" {
		t.Fatalf("attachment = %+v", a)
	}
	if _, err := reg.Execute(context.Background(), "message", json.RawMessage(`{"text":"x"}`)); !errors.Is(err, ErrNoRecipient) {
		t.Fatalf("err = %v", err)
	}
}
