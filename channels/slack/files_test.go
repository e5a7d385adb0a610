package slack_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/channels/slack"
)

// allowSink is a recordingSink with an allowlist, as the router has.
type allowSink struct {
	recordingSink
	allow map[string]bool
}

func (s *allowSink) Allowed(_, p string) bool { return s.allow[p] }

func newFileAdapter(t *testing.T, f *fakeSlack, spool string) *slack.Slack {
	t.Helper()
	s, err := slack.New(&slack.Options{AppToken: appToken, BotToken: botToken, APIURL: f.srv.URL + "/api/", SpoolDir: spool, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	s.SetBackoff(func() slack.Backoff { return quickBackoff{} })
	s.SetDownloader(&http.Client{}) // the fake is on the loopback address
	return s
}

// fileShare is a DM with files, as Slack sends a file_share message.
func fileShare(user, ts, text string, files ...map[string]any) map[string]any {
	list := make([]any, len(files))
	for i, f := range files {
		list[i] = f
	}
	return msg(user, "D1", "im", ts, text, map[string]any{"subtype": "file_share", "files": list})
}

func (f *fakeSlack) fileObject(name, mimetype string, size int) map[string]any {
	return map[string]any{"id": "F" + name, "name": name, "mimetype": mimetype, "size": size,
		"url_private_download": f.srv.URL + "/files/" + name}
}

func TestInboundFilesOfAnAllowedSender(t *testing.T) {
	f := newFakeSlack(t)
	png := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{7}, 100)...)
	f.mu.Lock()
	f.files["shot.png"] = png
	f.mu.Unlock()
	spool := t.TempDir()
	sink := &allowSink{allow: map[string]bool{"U1": true}}
	run(t, newFileAdapter(t, f, spool), sink)

	f.event(fileShare("U1", "3.0001", "what is this?", f.fileObject("shot.png", "image/png", len(png))))
	waitFor(t, "the message with its file", func() bool { return len(sink.delivered()) == 1 })
	inb := sink.delivered()[0]
	if inb.Text != "what is this?" || len(inb.Attachments) != 1 {
		t.Fatalf("delivered %+v", inb)
	}
	a := inb.Attachments[0]
	if a.Kind != channels.KindImage || a.Name != "shot.png" || filepath.Dir(a.Path) != spool {
		t.Errorf("attachment %+v", a)
	}
	if data, err := os.ReadFile(a.Path); err != nil || !bytes.Equal(data, png) {
		t.Errorf("spooled bytes differ: %v", err)
	}

	// A file with no text still reaches the agent, with a placeholder.
	f.event(fileShare("U1", "3.0002", "", f.fileObject("shot.png", "image/png", len(png))))
	waitFor(t, "the file-only message", func() bool { return len(sink.delivered()) == 2 })
	if inb := sink.delivered()[1]; inb.Text != "[The user sent a file.]" || len(inb.Attachments) != 1 {
		t.Errorf("file-only message %+v", inb)
	}
}

func TestInboundFilesRefused(t *testing.T) {
	f := newFakeSlack(t)
	f.mu.Lock()
	f.files["notes.txt"] = []byte("hello")
	f.mu.Unlock()
	sink := &allowSink{allow: map[string]bool{"U1": true}}
	run(t, newFileAdapter(t, f, t.TempDir()), sink)

	// A stranger's file is never downloaded.
	f.event(fileShare("U2", "4.0001", "take this", f.fileObject("notes.txt", "text/plain", 5)))
	// Too big, off Slack's hosts, no download offered, and a token
	// without files:read: each explained, none fetched but the last.
	big := f.fileObject("huge.bin", "application/octet-stream", channels.MaxAttachmentBytes+1)
	evil := f.fileObject("evil.txt", "text/plain", 5)
	evil["url_private_download"] = "https://files.example.com/evil.txt"
	hidden := map[string]any{"id": "Fh", "name": "hidden.txt", "mimetype": "text/plain", "size": 5, "mode": "hidden_by_limit"}
	signin := f.fileObject("signin.pdf", "application/pdf", 5)
	f.event(fileShare("U1", "4.0002", "several", big, evil, hidden, signin))
	waitFor(t, "the reply explaining the refusals", func() bool { return len(f.postsTo("D1")) == 1 })
	waitFor(t, "the allowed message", func() bool {
		for _, inb := range sink.delivered() {
			if inb.Text == "several" {
				return true
			}
		}
		return false
	})
	reply := f.postsTo("D1")[0].Text
	for _, want := range []string{"huge.bin is 25 MiB", "evil.txt was not fetched", "hidden.txt was not fetched", "files:read"} {
		if !strings.Contains(reply, want) {
			t.Errorf("reply %q lacks %q", reply, want)
		}
	}
	f.mu.Lock()
	downloads := f.downloads
	f.mu.Unlock()
	if downloads != 1 {
		t.Errorf("%d downloads, want only the sign-in one", downloads)
	}
	for _, inb := range sink.delivered() {
		if len(inb.Attachments) != 0 {
			t.Errorf("attachment delivered: %+v", inb)
		}
	}
}
