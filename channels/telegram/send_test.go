package telegram_test

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/joshbot/joshbot/bus"
	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/channels/telegram"
)

func ptr(s string) *string { return &s }

func TestRenderHTML(t *testing.T) {
	for _, tt := range []struct {
		name string
		md   string
		open *string
		want string
	}{
		{"escapes", "a < b && c > d", nil, "a &lt; b &amp;&amp; c &gt; d"},
		{"snake_case survives", "use my_var_name here", nil, "use my_var_name here"},
		{"bold and italic", "**bold** and *it* and _also_", nil, "<b>bold</b> and <i>it</i> and <i>also</i>"},
		{"inline code is literal", "run `a<b> **x**`", nil, "run <code>a&lt;b&gt; **x**</code>"},
		{"link", "see [docs](https://x.test/a_b_c?q=1&r=2)", nil, `see <a href="https://x.test/a_b_c?q=1&amp;r=2">docs</a>`},
		{"javascript link stays text", "[x](javascript:alert(1))", nil, "[x](javascript:alert(1))"},
		{"heading", "# Title\ntext", nil, "<b>Title</b>\ntext"},
		{"strike", "~~gone~~", nil, "<s>gone</s>"},
		{"fence", "```go\nif a < b {}\n```", nil, "<pre><code class=\"language-go\">if a &lt; b {}</code></pre>"},
		{"unclosed fence is closed", "```\nx", nil, "<pre><code>x</code></pre>"},
		{"piece starting inside a fence", "y := 1\n```\nafter", ptr("go"), "<pre><code class=\"language-go\">y := 1</code></pre>\nafter"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := telegram.RenderHTML(tt.md, tt.open); got != tt.want {
				t.Errorf("RenderHTML(%q) =\n %q\nwant\n %q", tt.md, got, tt.want)
			}
		})
	}
}

func TestSendThreadsAndFallsBackToPlainText(t *testing.T) {
	h := newHarness(t, nil, false)
	h.fake.override = func(c apiCall) (int, string) {
		if c.Method == "sendMessage" && c.Params["parse_mode"] == "HTML" && strings.Contains(c.Params["text"], "<b>") {
			return http.StatusBadRequest, `{"ok":false,"error_code":400,"description":"Bad Request: can't parse entities: unsupported start tag"}`
		}
		return 0, ""
	}
	md := "**bold** answer"
	if err := h.tg.Send(context.Background(), "42", channels.Outbound{Text: md, ReplyTo: "7:31"}); err != nil {
		t.Fatal(err)
	}
	sends := h.fake.callsOf("sendMessage")
	if len(sends) != 2 {
		t.Fatalf("sendMessage calls = %d, want an HTML attempt and a plain retry", len(sends))
	}
	plain := sends[1]
	if plain.Params["text"] != md || plain.Params["parse_mode"] != "" {
		t.Errorf("fallback = %+v, want the Markdown source with no parse mode", plain.Params)
	}
	for _, s := range sends {
		if s.Params["reply_to_message_id"] != "31" || s.Params["chat_id"] != "42" {
			t.Errorf("send %+v not threaded to message 31 in chat 42", s.Params)
		}
	}
}

func TestSendWaitsOutFloodLimit(t *testing.T) {
	h := newHarness(t, nil, false)
	w := &waits{}
	h.tg.SetClock(time.Now, w.after)
	n := 0
	h.fake.override = func(c apiCall) (int, string) {
		if c.Method == "sendMessage" {
			n++
			if n == 1 {
				return http.StatusTooManyRequests, `{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 7","parameters":{"retry_after":7}}`
			}
		}
		return 0, ""
	}
	if err := h.tg.Send(context.Background(), "42", channels.Outbound{Text: "hello"}); err != nil {
		t.Fatal(err)
	}
	if got := len(h.fake.callsOf("sendMessage")); got != 2 {
		t.Fatalf("sendMessage calls = %d, want 2", got)
	}
	if len(w.d) != 1 || w.d[0] != 7*time.Second {
		t.Errorf("waited %v, want [7s]", w.d)
	}
}

func TestSendFiles(t *testing.T) {
	png := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{0}, 2000)...)
	h := newHarness(t, nil, false)
	fails := 1
	h.fake.override = func(c apiCall) (int, string) {
		if c.Method == "sendDocument" && fails > 0 {
			fails--
			return http.StatusBadGateway, `{"ok":false,"error_code":502,"description":"Bad Gateway"}`
		}
		return 0, ""
	}
	err := h.tg.Send(context.Background(), "42", channels.Outbound{Text: "files", Files: []bus.Attachment{
		{Name: "chart.png", Data: png},
		{Name: "photo.txt", Data: []byte("not an image, despite the name")},
		{Name: "huge.bin", Data: make([]byte, 51<<20)}, // over even the self-hosted cap
	}})
	if err == nil || !strings.Contains(err.Error(), "huge.bin") {
		t.Fatalf("Send = %v, want an error naming the over-limit file", err)
	}
	photos, docs := h.fake.callsOf("sendPhoto"), h.fake.callsOf("sendDocument")
	if len(photos) != 1 || photos[0].Files["photo"] != len(png) {
		t.Errorf("photos = %+v, want chart.png as a photo with all its bytes", photos)
	}
	if len(docs) != 2 {
		t.Fatalf("sendDocument calls = %d, want a failed attempt and a rebuilt retry", len(docs))
	}
	if got := docs[1].Files["document"]; got != len("not an image, despite the name") {
		t.Errorf("retry uploaded %d bytes, want the whole file again", got)
	}
	var note bool
	for _, c := range h.fake.callsOf("sendMessage") {
		if strings.Contains(c.Params["text"], "huge.bin") && strings.Contains(c.Params["text"], "not sent") {
			note = true
		}
	}
	if !note {
		t.Error("no visible note about the file that was not sent")
	}
}

func TestSendRejectsBadConversation(t *testing.T) {
	h := newHarness(t, nil, false)
	if err := h.tg.Send(context.Background(), "not-a-chat", channels.Outbound{Text: "x"}); err == nil {
		t.Fatal("Send to a malformed conversation succeeded")
	}
}

func TestSetCommands(t *testing.T) {
	h := newHarness(t, nil, false)
	ctx := context.Background()
	if err := h.tg.SetCommands(ctx, []channels.Command{{Name: "Model", Description: "x"}}); err == nil || !strings.Contains(err.Error(), "Model") {
		t.Fatalf("SetCommands with an uppercase name = %v, want an error naming it", err)
	}
	if n := len(h.fake.callsOf("setMyCommands")); n != 0 {
		t.Fatalf("an invalid menu was sent")
	}
	menu := []channels.Command{{Name: "new", Description: "Start a new conversation"}, {Name: "model", Description: "Show or switch the model"}}
	if err := h.tg.SetCommands(ctx, menu); err != nil {
		t.Fatal(err)
	}
	c := h.fake.callsOf("setMyCommands")
	if len(c) != 1 || !strings.Contains(c[0].Params["commands"], `"command":"model"`) {
		t.Fatalf("setMyCommands = %+v", c)
	}
}

func telegramOutbound(text, replyTo string) channels.Outbound {
	return channels.Outbound{Text: text, ReplyTo: replyTo}
}

func TestSendRebalancesFencesAcrossPieces(t *testing.T) {
	h := newHarness(t, nil, false)
	var code strings.Builder
	code.WriteString("Here is the file:\n```go\n")
	for i := 0; code.Len() < 6000; i++ {
		code.WriteString("x := a < b // line\n")
	}
	code.WriteString("```\nDone.")
	md := code.String()
	if err := h.tg.Send(context.Background(), "42", channels.Outbound{Text: md}); err != nil {
		t.Fatal(err)
	}
	sends := h.fake.callsOf("sendMessage")
	if len(sends) != 2 {
		t.Fatalf("sent %d messages, want 2", len(sends))
	}
	first, second := sends[0].Params["text"], sends[1].Params["text"]
	if !strings.HasPrefix(first, "Here is the file:\n<pre><code class=\"language-go\">") || !strings.HasSuffix(first, "</code></pre>") {
		t.Errorf("first piece does not close its code block:\n%.80s ... %s", first, first[len(first)-40:])
	}
	if !strings.HasPrefix(second, "<pre><code class=\"language-go\">x := a &lt; b") || !strings.HasSuffix(second, "</code></pre>\nDone.") {
		t.Errorf("second piece does not reopen the code block:\n%.80s ... %s", second, second[len(second)-40:])
	}
}

func TestSendVoiceOnlyFromTheSpool(t *testing.T) {
	spool := t.TempDir()
	h := newHarness(t, &telegram.Options{SpoolDir: spool}, false)
	att, err := channels.SaveToSpool(spool, strings.NewReader("OggS voice bytes"), "audio/ogg", "reply.ogg")
	if err != nil {
		t.Fatal(err)
	}
	if err := h.tg.Send(context.Background(), "42", channels.Outbound{Text: "spoken", VoicePath: att.Path, ReplyTo: "1:5"}); err != nil {
		t.Fatal(err)
	}
	v := h.fake.callsOf("sendVoice")
	if len(v) != 1 || v[0].Files["voice"] != len("OggS voice bytes") {
		t.Fatalf("sendVoice = %+v", v)
	}
	outside := filepath.Join(t.TempDir(), filepath.Base(att.Path))
	os.WriteFile(outside, []byte("secret"), 0o600)
	if err := h.tg.Send(context.Background(), "42", channels.Outbound{Text: "x", VoicePath: outside}); err == nil {
		t.Fatal("a voice path outside the spool was sent")
	}
	if n := len(h.fake.callsOf("sendVoice")); n != 1 {
		t.Fatalf("sendVoice calls = %d, want 1", n)
	}
}

func TestUploadAnsweredWithTheWrongMessageIsAnError(t *testing.T) {
	h := newHarness(t, nil, false)
	h.fake.override = func(c apiCall) (int, string) {
		if c.Method == "sendPhoto" {
			return http.StatusOK, `{"ok":true,"result":{"message_id":1,"date":1,"chat":{"id":42,"type":"private"}}}`
		}
		return 0, ""
	}
	png := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 64)...)
	err := h.tg.Send(context.Background(), "42", channels.Outbound{Files: []bus.Attachment{{Name: "a.png", Data: png}}})
	if err == nil || !strings.Contains(err.Error(), "unexpected") {
		t.Fatalf("Send = %v, want an error instead of a panic", err)
	}
}

// TestSendFileCarriesCaption: a reply of one file and a short text goes
// as one upload with the text as its caption, rendered as HTML; when
// Telegram refuses the markup ("can't parse entities") the caption is
// sent again as plain text, with no parse mode, and the file still goes.
func TestSendFileCarriesCaption(t *testing.T) {
	h := newHarness(t, nil, false)
	h.fake.override = func(c apiCall) (int, string) {
		if c.Method == "sendDocument" && c.Params["parse_mode"] == "HTML" {
			return http.StatusBadRequest, `{"ok":false,"error_code":400,"description":"Bad Request: can't parse entities: unsupported start tag"}`
		}
		return 0, ""
	}
	err := h.tg.Send(context.Background(), "42", channels.Outbound{Text: "the **log** you asked for", Files: []bus.Attachment{
		{Name: "run.log", Data: []byte("line one\nline two\n")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	docs := h.fake.callsOf("sendDocument")
	if len(docs) != 2 {
		t.Fatalf("sendDocument calls = %d, want the HTML attempt and the plain retry", len(docs))
	}
	if got := docs[0].Params["caption"]; !strings.Contains(got, "<b>log</b>") {
		t.Errorf("first caption = %q, want the rendered HTML", got)
	}
	if got := docs[1].Params["caption"]; got != "the **log** you asked for" || docs[1].Params["parse_mode"] != "" {
		t.Errorf("retry caption = %q parse_mode %q, want the plain source and no parse mode", got, docs[1].Params["parse_mode"])
	}
	if docs[1].Files["document"] != len("line one\nline two\n") {
		t.Errorf("retry uploaded %d bytes", docs[1].Files["document"])
	}
	if n := len(h.fake.callsOf("sendMessage")); n != 0 {
		t.Errorf("sendMessage calls = %d, want the text only as the caption", n)
	}
}
