package telegram_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/channels/telegram"
)

func TestNormalizeMessages(t *testing.T) {
	group := map[string]any{"id": -100, "type": "supergroup", "title": "G"}
	for _, tt := range []struct {
		name      string
		update    map[string]any
		want      *channels.Inbound // nil: nothing delivered
		textHas   string
		principal string
	}{
		{
			name:   "private text",
			update: msg(map[string]any{"text": "hi"}),
			want:   &channels.Inbound{Conversation: "42", Principal: "42", MessageID: "1:10", IsDirect: true, Text: "hi"},
		},
		{
			name:   "group mention entity",
			update: msg(map[string]any{"chat": group, "text": "hey @JoshTestBot look", "entities": []map[string]any{{"type": "mention", "offset": 4, "length": 12}}}),
			want:   &channels.Inbound{Conversation: "-100", Principal: "42", MessageID: "1:10", Mentioned: true, Text: "hey @JoshTestBot look"},
		},
		{
			name:   "group substring is not a mention",
			update: msg(map[string]any{"chat": group, "text": "JoshTestBot is great"}),
			want:   &channels.Inbound{Conversation: "-100", Principal: "42", MessageID: "1:10", Text: "JoshTestBot is great"},
		},
		{
			name:   "mention of another bot",
			update: msg(map[string]any{"chat": group, "text": "@OtherBot hi", "entities": []map[string]any{{"type": "mention", "offset": 0, "length": 9}}}),
			want:   &channels.Inbound{Conversation: "-100", Principal: "42", MessageID: "1:10", Text: "@OtherBot hi"},
		},
		{
			name:   "text_mention",
			update: msg(map[string]any{"chat": group, "text": "Josh hi", "entities": []map[string]any{{"type": "text_mention", "offset": 0, "length": 4, "user": map[string]any{"id": 777, "is_bot": true, "first_name": "Josh"}}}}),
			want:   &channels.Inbound{Conversation: "-100", Principal: "42", MessageID: "1:10", Mentioned: true, Text: "Josh hi"},
		},
		{
			name:   "reply to the bot",
			update: msg(map[string]any{"chat": group, "text": "and?", "reply_to_message": map[string]any{"message_id": 5, "date": 1, "chat": group, "from": map[string]any{"id": 777, "is_bot": true, "first_name": "Josh"}}}),
			want:   &channels.Inbound{Conversation: "-100", Principal: "42", MessageID: "1:10", Mentioned: true, Text: "and?"},
		},
		{
			name:   "command addressed to the bot",
			update: msg(map[string]any{"chat": group, "text": "/model@JoshTestBot gpt-4o", "entities": []map[string]any{{"type": "bot_command", "offset": 0, "length": 18}}}),
			want:   &channels.Inbound{Conversation: "-100", Principal: "42", MessageID: "1:10", Mentioned: true, Text: "/model gpt-4o"},
		},
		{
			name:   "command addressed to another bot",
			update: msg(map[string]any{"chat": group, "text": "/model@OtherBot", "entities": []map[string]any{{"type": "bot_command", "offset": 0, "length": 15}}}),
			want:   &channels.Inbound{Conversation: "-100", Principal: "42", MessageID: "1:10", Text: "/model@OtherBot"},
		},
		{
			name:   "forum topic",
			update: msg(map[string]any{"chat": group, "text": "x", "message_thread_id": 7, "is_topic_message": true}),
			want:   &channels.Inbound{Conversation: "-100:7", Principal: "42", MessageID: "1:10", Text: "x"},
		},
		{
			name:      "allowed by handle only",
			update:    msg(map[string]any{"from": map[string]any{"id": 43, "is_bot": false, "first_name": "B", "username": "Bob"}, "chat": map[string]any{"id": 43, "type": "private"}, "text": "yo"}),
			want:      &channels.Inbound{Conversation: "43", Principal: "@Bob", MessageID: "1:10", IsDirect: true, Text: "yo"},
			principal: "@Bob",
		},
		{
			name:    "edited message is a correction",
			update:  map[string]any{"edited_message": msg(map[string]any{"text": "fixed"})["message"]},
			textHas: "correction",
			want:    &channels.Inbound{Conversation: "42", Principal: "42", MessageID: "1:10", IsDirect: true},
		},
		{
			name:   "sticker ignored",
			update: msg(map[string]any{"sticker": map[string]any{"file_id": "S", "file_unique_id": "s", "width": 1, "height": 1, "type": "regular"}}),
		},
		{
			name:   "bot sender ignored",
			update: msg(map[string]any{"from": map[string]any{"id": 9, "is_bot": true, "first_name": "B"}, "text": "beep"}),
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, nil, true)
			h.sink.allow["@Bob"] = true
			h.fake.push(tt.update)
			h.fake.push(msg(map[string]any{"message_id": 99, "text": "sentinel"}))
			waitFor(t, "sentinel", func() bool {
				got := h.sink.delivered()
				return len(got) > 0 && got[len(got)-1].Text == "sentinel"
			})
			got := h.sink.delivered()
			got = got[:len(got)-1]
			if tt.want == nil {
				if len(got) != 0 {
					t.Fatalf("delivered %+v, want nothing", got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("delivered %d messages, want 1", len(got))
			}
			g := got[0]
			if tt.textHas != "" {
				if !strings.Contains(g.Text, tt.textHas) {
					t.Errorf("Text = %q, want it to contain %q", g.Text, tt.textHas)
				}
				g.Text = ""
			}
			w := *tt.want
			w.Channel = telegram.Name
			if g.Channel != w.Channel || g.Conversation != w.Conversation || g.Principal != w.Principal ||
				g.MessageID != w.MessageID || g.IsDirect != w.IsDirect || g.Mentioned != w.Mentioned || g.Text != w.Text {
				t.Errorf("inbound =\n %+v\nwant\n %+v", g, w)
			}
		})
	}
}

// mediaCase runs one media message from the listed user 42 and returns
// what was delivered and what the bot replied.
func mediaCase(t *testing.T, opts *telegram.Options, files map[string][]byte, fields map[string]any) (*harness, []channels.Inbound, []string) {
	t.Helper()
	h := newHarness(t, opts, false)
	for id, b := range files {
		h.fake.files[id] = b
		h.fake.declared[id] = min(len(b), 1000)
	}
	h.fake.push(msg(fields))
	h.fake.push(msg(map[string]any{"message_id": 99, "text": "sentinel"}))
	ctx := t.Context()
	go h.tg.Start(ctx, h.sink)
	waitFor(t, "sentinel", func() bool {
		got := h.sink.delivered()
		return len(got) > 0 && got[len(got)-1].Text == "sentinel"
	})
	got := h.sink.delivered()
	var replies []string
	for _, c := range h.fake.callsOf("sendMessage") {
		replies = append(replies, c.Params["text"])
	}
	return h, got[:len(got)-1], replies
}

func TestMediaHandling(t *testing.T) {
	png := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{1}, 100)...)
	pdf := []byte("%PDF-1.7\n" + strings.Repeat("x", 100))
	long := strings.Repeat("abcdefgh\n", 9000) // 81,000 bytes
	for _, tt := range []struct {
		name         string
		files        map[string][]byte
		fields       map[string]any
		delivered    bool
		textHas      []string
		kind         string // attachment kind, "" for none
		replyHas     string // direct reply, "" for none
		wantDownload bool
	}{
		{
			name:      "photo to the spool",
			files:     map[string][]byte{"P1": png},
			fields:    map[string]any{"caption": "what is this", "photo": []map[string]any{{"file_id": "small", "file_unique_id": "s", "width": 1, "height": 1}, {"file_id": "P1", "file_unique_id": "p", "width": 9, "height": 9, "file_size": len(png)}}},
			delivered: true, textHas: []string{"what is this"}, kind: channels.KindImage, wantDownload: true,
		},
		{
			name:     "oversized photo refused from its declared size",
			files:    map[string][]byte{"P2": png},
			fields:   map[string]any{"photo": []map[string]any{{"file_id": "P2", "file_unique_id": "p", "width": 9, "height": 9, "file_size": 6 << 20}}},
			replyHas: "up to 5.0 MiB",
		},
		{
			name:      "text document inlined with a truncation marker",
			files:     map[string][]byte{"T1": []byte(long)},
			fields:    map[string]any{"caption": "summarize", "document": map[string]any{"file_id": "T1", "file_unique_id": "t", "file_name": "log.txt", "mime_type": "text/plain", "file_size": len(long)}},
			delivered: true, textHas: []string{"summarize", "[Attached file log.txt]", "abcdefgh", "truncated: only the first 64 KiB"}, wantDownload: true,
		},
		{
			name:     "binary behind a text name refused by its bytes",
			files:    map[string][]byte{"T2": {0x7f, 'E', 'L', 'F', 0, 0, 1, 2}},
			fields:   map[string]any{"document": map[string]any{"file_id": "T2", "file_unique_id": "t", "file_name": "notes.md", "file_size": 8}},
			replyHas: "looks binary", wantDownload: true,
		},
		{
			name:      "pdf to the spool",
			files:     map[string][]byte{"D1": pdf},
			fields:    map[string]any{"document": map[string]any{"file_id": "D1", "file_unique_id": "d", "file_name": "paper.pdf", "mime_type": "application/pdf", "file_size": len(pdf)}},
			delivered: true, textHas: []string{"paper.pdf"}, kind: channels.KindPDF, wantDownload: true,
		},
		{
			name:     "pdf that lies about its size refused, not truncated",
			files:    map[string][]byte{"D2": append([]byte("%PDF-"), make([]byte, 9<<20)...)},
			fields:   map[string]any{"document": map[string]any{"file_id": "D2", "file_unique_id": "d", "file_name": "big.pdf", "mime_type": "application/pdf", "file_size": 1000}},
			replyHas: "larger than it claimed", wantDownload: true,
		},
		{
			name:     "office file refused with the supported list",
			fields:   map[string]any{"document": map[string]any{"file_id": "X", "file_unique_id": "x", "file_name": "plan.docx", "file_size": 10}},
			replyHas: "I can read text files",
		},
		{
			name:     "voice note gets an honest reply and no turn",
			fields:   map[string]any{"voice": map[string]any{"file_id": "V", "file_unique_id": "v", "duration": 3}},
			replyHas: "can't listen",
		},
		{
			name:      "video caption forwarded, framed",
			fields:    map[string]any{"caption": "look at my cat", "video": map[string]any{"file_id": "V", "file_unique_id": "v", "width": 1, "height": 1, "duration": 3}},
			delivered: true, textHas: []string{"cannot perceive", "look at my cat"}, replyHas: "can't watch",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			spool := t.TempDir()
			h, got, replies := mediaCase(t, &telegram.Options{SpoolDir: spool}, tt.files, tt.fields)
			if tt.delivered != (len(got) == 1) {
				t.Fatalf("delivered %+v, want delivered=%v", got, tt.delivered)
			}
			if tt.delivered {
				for _, s := range tt.textHas {
					if !strings.Contains(got[0].Text, s) {
						t.Errorf("Text does not contain %q:\n%.300s", s, got[0].Text)
					}
				}
				if tt.kind == "" && len(got[0].Attachments) != 0 {
					t.Errorf("attachments = %+v, want none", got[0].Attachments)
				}
				if tt.kind != "" {
					if len(got[0].Attachments) != 1 || got[0].Attachments[0].Kind != tt.kind {
						t.Fatalf("attachments = %+v, want one %s", got[0].Attachments, tt.kind)
					}
					a := got[0].Attachments[0]
					if _, err := channels.ResolveSpoolID(spool, a.ID()); err != nil {
						t.Errorf("attachment not in the spool: %v", err)
					}
					if b, _ := os.ReadFile(a.Path); !bytes.Equal(b, tt.files[firstKey(tt.files)]) {
						t.Errorf("spooled bytes differ from the upload")
					}
				}
			}
			hasReply := false
			for _, r := range replies {
				if tt.replyHas != "" && strings.Contains(r, tt.replyHas) {
					hasReply = true
				}
			}
			if tt.replyHas != "" && !hasReply {
				t.Errorf("replies %q, want one containing %q", replies, tt.replyHas)
			}
			if tt.replyHas == "" && len(replies) != 0 {
				t.Errorf("replies %q, want none", replies)
			}
			if n := len(h.fake.callsOf("download")); (n > 0) != tt.wantDownload {
				t.Errorf("downloads = %d, want download=%v", n, tt.wantDownload)
			}
		})
	}
}

func firstKey(m map[string][]byte) string {
	for k := range m {
		return k
	}
	return ""
}

func TestUnlistedSenderCostsNoDownloadNorReply(t *testing.T) {
	h := newHarness(t, &telegram.Options{SpoolDir: t.TempDir()}, false)
	h.fake.files["P"] = []byte("\x89PNG\r\n\x1a\n")
	stranger := map[string]any{"id": 66, "is_bot": false, "first_name": "S"}
	h.fake.push(msg(map[string]any{"from": stranger, "chat": map[string]any{"id": 66, "type": "private"}, "photo": []map[string]any{{"file_id": "P", "file_unique_id": "p", "width": 1, "height": 1}}}))
	h.fake.push(msg(map[string]any{"from": stranger, "chat": map[string]any{"id": 66, "type": "private"}, "voice": map[string]any{"file_id": "V", "file_unique_id": "v", "duration": 1}}))
	h.fake.push(msg(map[string]any{"message_id": 99, "text": "sentinel"}))
	go h.tg.Start(t.Context(), h.sink)
	waitFor(t, "sentinel", func() bool {
		got := h.sink.delivered()
		return len(got) > 0 && got[len(got)-1].Text == "sentinel"
	})
	if n := len(h.fake.callsOf("getFile")); n != 0 {
		t.Errorf("getFile called %d times for an unlisted sender", n)
	}
	if r := h.fake.callsOf("sendMessage"); len(r) != 0 {
		t.Errorf("replied %d times to an unlisted sender", len(r))
	}
	for _, inb := range h.sink.delivered() {
		if len(inb.Attachments) != 0 {
			t.Errorf("unlisted sender's message carried attachments: %+v", inb)
		}
	}
}

func TestTranscriberTurnsVoiceIntoText(t *testing.T) {
	tr := transcriberFunc(func(b []byte) string { return "spoken " + string(b) })
	_, got, replies := mediaCase(t, &telegram.Options{Transcriber: tr}, map[string][]byte{"V": []byte("words")},
		map[string]any{"voice": map[string]any{"file_id": "V", "file_unique_id": "v", "duration": 1, "file_size": 5}})
	if len(got) != 1 || !strings.Contains(got[0].Text, "spoken words") {
		t.Fatalf("delivered %+v, want the transcript", got)
	}
	if len(replies) != 0 {
		t.Errorf("replies %q, want none", replies)
	}
}
