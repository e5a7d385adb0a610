package discord_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/joshbot/joshbot/bus"
	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/channels/discord"
)

// recordingSink allows the listed principals and records deliveries.
type recordingSink struct {
	allow map[string]bool
	mu    sync.Mutex
	got   []channels.Inbound
}

func (s *recordingSink) Allowed(_, p string) bool { return s.allow[p] }

func (s *recordingSink) Deliver(_ context.Context, inb channels.Inbound) error {
	s.mu.Lock()
	s.got = append(s.got, inb)
	s.mu.Unlock()
	return nil
}

func (s *recordingSink) delivered() []channels.Inbound {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]channels.Inbound(nil), s.got...)
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// run starts d with sink until the test ends.
func run(t *testing.T, f *fakeDiscord, d *discord.Discord, sink channels.Sink) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Start(ctx, sink) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("Start = %v, want context.Canceled", err)
		}
	})
	f.waitConnected(t)
}

const alice = "100000000000000042"

func TestGatingIsStructural(t *testing.T) {
	f := newFakeDiscord(t)
	d := newAdapter(t, f, &discord.Options{RespondToAllChannels: []string{"open-channel"}})
	s := &recordingSink{allow: map[string]bool{alice: true}}
	run(t, f, d, s)
	bot := map[string]any{"id": botID, "username": "joshbot", "bot": true}
	a := user(alice, "alice")
	for _, tt := range []struct {
		name      string
		msg       map[string]any
		direct    bool
		mentioned bool
		text      string
	}{
		{"dm", message("1", "dm-1", "", a, "hi", nil), true, false, "hi"},
		{"guild, not addressed", message("2", "general", "g1", a, "talking about joshbot", nil), false, false, "talking about joshbot"},
		{"guild, name typed but no mention", message("3", "general", "g1", a, "@joshbot hello", nil), false, false, "@joshbot hello"},
		{"guild, mentioned", message("4", "general", "g1", a, "<@"+botID+"> what time is it", map[string]any{"mentions": []any{bot}}), false, true, "what time is it"},
		{"guild, someone else mentioned", message("5", "general", "g1", a, "<@123> hi", map[string]any{"mentions": []any{user("123", "bob")}}), false, false, "<@123> hi"},
		{"guild, reply to the bot", message("6", "general", "g1", a, "and then?", map[string]any{
			"referenced_message": message("77", "general", "g1", bot, "earlier answer", nil)}), false, true, "and then?"},
		{"guild, reply to someone else", message("7", "general", "g1", a, "yes", map[string]any{
			"referenced_message": message("78", "general", "g1", user("123", "bob"), "q", nil)}), false, false, "yes"},
		{"respond-to-all channel", message("8", "open-channel", "g1", a, "anyone?", nil), false, true, "anyone?"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			n := len(s.delivered())
			f.dispatch("MESSAGE_CREATE", tt.msg)
			waitFor(t, "delivery", func() bool { return len(s.delivered()) > n })
			got := s.delivered()[n]
			if got.IsDirect != tt.direct || got.Mentioned != tt.mentioned || got.Text != tt.text || got.Principal != alice || got.Channel != discord.Name {
				t.Fatalf("got %+v, want direct=%v mentioned=%v text=%q from %s", got, tt.direct, tt.mentioned, tt.text, alice)
			}
		})
	}
	// Bots, the adapter itself included, never trigger it.
	n := len(s.delivered())
	f.dispatch("MESSAGE_CREATE", message("9", "dm-1", "", bot, "my own reply", nil))
	f.dispatch("MESSAGE_CREATE", message("10", "dm-1", "", a, "marker", nil))
	waitFor(t, "marker", func() bool { return len(s.delivered()) > n })
	if got := s.delivered()[n].Text; got != "marker" {
		t.Fatalf("a bot's message was delivered: %q", got)
	}
}

func TestSendSplitsAtFencesThreadsAndMutesMentions(t *testing.T) {
	f := newFakeDiscord(t)
	d := newAdapter(t, f, nil)
	run(t, f, d, &recordingSink{})
	var b strings.Builder
	b.WriteString("Here is the code:\n\n```go\n")
	for b.Len() < 2600 {
		b.WriteString("fmt.Println(\"line of code\") // @everyone\n")
	}
	b.WriteString("```\n\nAnd a closing paragraph.")
	text := b.String()
	if err := d.Send(context.Background(), "chan-1", channels.Outbound{Text: text, ReplyTo: "555"}); err != nil {
		t.Fatal(err)
	}
	sent := f.sentTo("chan-1")
	if len(sent) < 2 {
		t.Fatalf("%d messages, want the text split", len(sent))
	}
	var joined strings.Builder
	for i, m := range sent {
		if n := len([]rune(m.Content)); n > discord.MaxMessage {
			t.Errorf("piece %d has %d characters", i, n)
		}
		if (m.Reference == "555") != (i == 0) {
			t.Errorf("piece %d reference = %q: only the first threads to the question", i, m.Reference)
		}
		if m.Mentions == nil || len(m.Mentions.Parse) != 0 {
			t.Errorf("piece %d allowed_mentions = %+v, want none parsed", i, m.Mentions)
		}
		joined.WriteString(m.Content)
	}
	if joined.String() != text {
		t.Fatal("pieces do not join back to the text")
	}
	// The first piece ends on a line inside or after the fence, never mid-line.
	if !strings.HasSuffix(sent[0].Content, "\n") {
		t.Errorf("first piece ends mid-line: %q", sent[0].Content[len(sent[0].Content)-40:])
	}
}

func TestFilesOutAndOversizeNamed(t *testing.T) {
	f := newFakeDiscord(t)
	d := newAdapter(t, f, nil)
	run(t, f, d, &recordingSink{})
	big := make([]byte, discord.MaxFileBytes+1)
	err := d.Send(context.Background(), "chan-2", channels.Outbound{Text: "report attached", Files: []bus.Attachment{
		{Name: "report.csv", Data: []byte("a,b\n1,2\n")},
		{Name: "huge.bin", Data: big},
	}})
	if err == nil || !strings.Contains(err.Error(), "huge.bin") {
		t.Fatalf("Send = %v, want an error naming the oversize file", err)
	}
	sent := f.sentTo("chan-2")
	if len(sent) != 2 || sent[0].Content != "report attached" {
		t.Fatalf("sent %+v", sent)
	}
	if sent[1].Files["report.csv"] != 8 || !strings.Contains(sent[1].Content, "huge.bin") {
		t.Fatalf("file message = %+v, want report.csv uploaded and huge.bin named", sent[1])
	}
}

func TestAttachmentsInOnlyForAllowedSenders(t *testing.T) {
	f := newFakeDiscord(t)
	spool := t.TempDir()
	d := newAdapter(t, f, &discord.Options{SpoolDir: spool})
	s := &recordingSink{allow: map[string]bool{alice: true}}
	run(t, f, d, s)
	path := "/cdn/" + f.token + "/photo.png"
	f.mu.Lock()
	f.files[path] = []byte("\x89PNG\r\n\x1a\nfake image bytes")
	f.mu.Unlock()
	att := func(id string) map[string]any {
		return map[string]any{"attachments": []any{map[string]any{"id": id, "filename": "photo.png", "content_type": "image/png", "size": 24, "url": server.URL + path}}}
	}
	f.dispatch("MESSAGE_CREATE", message("20", "dm-s", "", user("666", "stranger"), "", att("a1")))
	f.dispatch("MESSAGE_CREATE", message("21", "dm-a", "", user(alice, "alice"), "what is this?", att("a2")))
	waitFor(t, "both messages", func() bool { return len(s.delivered()) == 2 })
	got := s.delivered()
	if len(got[0].Attachments) != 0 {
		t.Fatalf("the stranger's attachment was fetched: %+v", got[0])
	}
	f.mu.Lock()
	downloads := f.downloads
	f.mu.Unlock()
	if downloads != 1 {
		t.Fatalf("%d downloads, want 1 (the allowed sender's only)", downloads)
	}
	if len(got[1].Attachments) != 1 || got[1].Attachments[0].Kind != channels.KindImage {
		t.Fatalf("allowed sender's message = %+v, want one image attachment", got[1])
	}
	if data, err := os.ReadFile(got[1].Attachments[0].Path); err != nil || !strings.HasPrefix(string(data), "\x89PNG") {
		t.Fatalf("spool file: %v", err)
	}
}

// TestResumeLosesAndDoublesNothing drops the connection, has the gateway
// dispatch a message while the adapter is away, and checks the session is
// resumed (not re-identified) and the message arrives exactly once.
func TestResumeLosesAndDoublesNothing(t *testing.T) {
	f := newFakeDiscord(t)
	d := newAdapter(t, f, nil)
	s := &recordingSink{allow: map[string]bool{alice: true}}
	r, err := channels.NewRouter(&channels.RouterOptions{Dir: t.TempDir(), AllowFrom: map[string][]string{discord.Name: {alice}}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var mu sync.Mutex
	var ran []string
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.Run(ctx, func(ctx context.Context, inb channels.Inbound) {
			mu.Lock()
			ran = append(ran, inb.Text)
			mu.Unlock()
			d.Send(ctx, inb.Conversation, channels.Outbound{Text: "re: " + inb.Text, ReplyTo: inb.MessageID})
		}, nil)
	}()
	defer func() { cancel(); <-done }()
	_ = s
	run(t, f, d, r)
	a := user(alice, "alice")
	f.dispatch("MESSAGE_CREATE", message("30", "dm-a", "", a, "before", nil))
	waitFor(t, "first reply", func() bool { return len(f.sentTo("dm-a")) == 1 })

	f.drop()
	f.dispatch("MESSAGE_CREATE", message("31", "dm-a", "", a, "during the outage", nil))
	f.waitConnected(t)
	waitFor(t, "reply to the replayed message", func() bool { return len(f.sentTo("dm-a")) == 2 })
	time.Sleep(100 * time.Millisecond)

	f.mu.Lock()
	identifies, resumes := f.identifies, append([]int64(nil), f.resumes...)
	f.mu.Unlock()
	if identifies != 1 || len(resumes) != 1 {
		t.Fatalf("identifies=%d resumes=%v, want one IDENTIFY and one RESUME", identifies, resumes)
	}
	var replies []string
	for _, m := range f.sentTo("dm-a") {
		replies = append(replies, m.Content)
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(ran, "|") != "before|during the outage" || strings.Join(replies, "|") != "re: before|re: during the outage" {
		t.Fatalf("ran %q, replied %q: want each message once, in order", ran, replies)
	}
}

func TestTypingKeptAliveUntilStopped(t *testing.T) {
	f := newFakeDiscord(t)
	d := newAdapter(t, f, nil)
	var ty channels.TypingIndicator = d
	stop := ty.Typing(context.Background(), "chan-t")
	waitFor(t, "typing", func() bool { f.mu.Lock(); defer f.mu.Unlock(); return f.typing["chan-t"] >= 1 })
	stop()
	stop() // idempotent
	f.mu.Lock()
	n := f.typing["chan-t"]
	f.mu.Unlock()
	time.Sleep(50 * time.Millisecond)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.typing["chan-t"] != n {
		t.Fatal("typing sent after stop returned")
	}
}

func TestCommandsPublishedAndSlashCommandDelivered(t *testing.T) {
	f := newFakeDiscord(t)
	d := newAdapter(t, f, nil)
	var menus channels.CommandMenu = d
	if err := menus.SetCommands(context.Background(), []channels.Command{{Name: "Bad Name", Description: "x"}}); err == nil || !strings.Contains(err.Error(), "Bad Name") {
		t.Fatalf("bad command accepted: %v", err)
	}
	if err := menus.SetCommands(context.Background(), []channels.Command{{Name: "new", Description: ""}}); err == nil || !strings.Contains(err.Error(), `"new"`) {
		t.Fatalf("a command with no description accepted: %v", err)
	}
	// Before the gateway connected the application id is unknown: the
	// menu is kept and published with READY.
	menu := []channels.Command{{Name: "new", Description: "Start a new conversation"}, {Name: "model", Description: "Show or switch the model"}}
	if err := menus.SetCommands(context.Background(), menu); err != nil {
		t.Fatalf("SetCommands before Start = %v, want the menu kept", err)
	}
	published := func() []*discordgo.ApplicationCommand {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.commands
	}
	if n := len(published()); n != 0 {
		t.Fatalf("%d commands published before the gateway connected", n)
	}
	s := &recordingSink{allow: map[string]bool{alice: true}}
	run(t, f, d, s)
	waitFor(t, "the kept menu published on READY", func() bool { return len(published()) == 2 })
	if cmds := published(); cmds[1].Name != "model" || len(cmds[1].Options) != 1 {
		t.Fatalf("published %+v", cmds)
	}
	// Connected: published at once, a long description shortened.
	long := strings.Repeat("x", 150)
	if err := menus.SetCommands(context.Background(), []channels.Command{{Name: "help", Description: long}}); err != nil {
		t.Fatal(err)
	}
	if cmds := published(); len(cmds) != 1 || cmds[0].Description != strings.Repeat("x", 99)+"…" {
		t.Fatalf("published %+v, want one command with its description cut to 99 characters and an ellipsis", cmds)
	}
	f.dispatch("INTERACTION_CREATE", map[string]any{
		"id": "9001", "application_id": appID, "type": 2, "channel_id": "dm-a", "token": "itok",
		"user": user(alice, "alice"),
		"data": map[string]any{"id": "c1", "name": "model", "type": 1, "options": []any{map[string]any{"name": "args", "type": 3, "value": "gpt-5"}}},
	})
	waitFor(t, "the command", func() bool { return len(s.delivered()) == 1 })
	if got := s.delivered()[0]; got.Text != "/model gpt-5" || !got.IsDirect || got.Principal != alice {
		t.Fatalf("delivered %+v, want /model gpt-5 from %s", got, alice)
	}
	waitFor(t, "the interaction answer", func() bool { f.mu.Lock(); defer f.mu.Unlock(); return len(f.responses) == 1 })
	f.mu.Lock()
	defer f.mu.Unlock()
	if r := f.responses[0]; r.Data == nil || r.Data.Content != "/model gpt-5" {
		t.Fatalf("interaction answered with %+v", r)
	}
}

func TestStartReturnsOnRejectedToken(t *testing.T) {
	d, err := discord.New(&discord.Options{Token: "not-a-registered-token", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := d.Start(ctx, &recordingSink{}); !errors.Is(err, discord.ErrUnauthorized) {
		t.Fatalf("Start = %v, want ErrUnauthorized", err)
	}
}

func TestNewNeedsAToken(t *testing.T) {
	// The error names the field, never a program's config key.
	if _, err := discord.New(&discord.Options{}); err == nil || !strings.Contains(err.Error(), "Options.Token") || strings.Contains(err.Error(), "channels.") {
		t.Fatalf("New without a token = %v, want an error naming Options.Token", err)
	}
}

// A 1 MiB answer used to be 525 messages; now it is a head and the whole
// text as reply.md.
func TestSendLongReplyGoesAsAFile(t *testing.T) {
	f := newFakeDiscord(t)
	d := newAdapter(t, f, nil)
	run(t, f, d, &recordingSink{})
	text := strings.Repeat("a line of a very long answer, over and over\n", (1<<20)/44)
	if err := d.Send(context.Background(), "chan-3", channels.Outbound{Text: text, ReplyTo: "555"}); err != nil {
		t.Fatal(err)
	}
	sent := f.sentTo("chan-3")
	if len(sent) != 2 {
		t.Fatalf("%d messages, want a head and the file", len(sent))
	}
	if !strings.Contains(sent[0].Content, "reply.md") || sent[0].Reference != "555" {
		t.Fatalf("head %+v", sent[0])
	}
	if n := sent[1].Files["reply.md"]; n != len(text) {
		t.Fatalf("reply.md is %d bytes, want the whole %d-byte answer", n, len(text))
	}
}

// Once ctx ends, the rest of a reply is not sent.
func TestSendStopsWhenContextEnds(t *testing.T) {
	f := newFakeDiscord(t)
	d := newAdapter(t, f, nil)
	run(t, f, d, &recordingSink{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := d.Send(ctx, "chan-4", channels.Outbound{Text: strings.Repeat("word ", 1200)})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Send = %v, want the context's error", err)
	}
	if n := len(f.sentTo("chan-4")); n != 0 {
		t.Fatalf("%d messages sent after the context ended", n)
	}
}
