package telegram_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/channels/telegram"
	"github.com/joshbot/joshbot/channels/telegram/telegramtest"
)

// gateway runs the adapter with a real channels.Router as its sink and
// handler as the turn, the way `joshbot gateway` joins them.
func gateway(t *testing.T, e *telegramtest.Emulator, allow []string, handler func(tg *telegram.Telegram) channels.Handler) *telegram.Telegram {
	t.Helper()
	tg, err := telegram.New(&telegram.Options{Token: telegramtest.Token, APIURL: e.APIURL, PollTimeout: time.Second, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	r, err := channels.NewRouter(&channels.RouterOptions{
		Dir:       t.TempDir(),
		Channels:  []string{telegram.Name},
		AllowFrom: map[string][]string{telegram.Name: allow},
		Logger:    slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); tg.Start(ctx, r) }()
	go func() { defer wg.Done(); r.Run(ctx, handler(tg), nil) }()
	t.Cleanup(func() { cancel(); wg.Wait(); r.Close() })
	return tg
}

func TestEmulatorMessageAnsweredOnce(t *testing.T) {
	e := telegramtest.Start(t)
	var mu sync.Mutex
	var seen []channels.Inbound
	gateway(t, e, []string{"1"}, func(tg *telegram.Telegram) channels.Handler {
		return func(ctx context.Context, inb channels.Inbound) {
			mu.Lock()
			seen = append(seen, inb)
			mu.Unlock()
			if err := tg.Send(ctx, inb.Conversation, channels.Outbound{Text: "pong: " + inb.Text, ReplyTo: inb.MessageID}); err != nil {
				t.Errorf("Send: %v", err)
			}
		}
	})
	e.UserSends(t, 1, "ping", nil)
	waitFor(t, "the reply", func() bool { return len(e.BotMessages(t, 1)) >= 1 })
	time.Sleep(1500 * time.Millisecond) // several more polls: nothing may run twice
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 {
		t.Fatalf("handler ran %d times, want once: %+v", len(seen), seen)
	}
	if seen[0].Text != "ping" || seen[0].Principal != "1" || !seen[0].IsDirect || seen[0].Conversation != "1" {
		t.Errorf("inbound = %+v", seen[0])
	}
	got := e.BotMessages(t, 1)
	if len(got) != 1 || got[0].Text != "pong: ping" {
		t.Fatalf("bot sent %+v, want one \"pong: ping\"", got)
	}
	if got[0].ReplyTo == "" || got[0].ReplyTo == "0" {
		t.Errorf("reply not threaded to the asking message: %+v", got[0])
	}
}

func TestEmulatorLongAnswerArrivesWhole(t *testing.T) {
	e := telegramtest.Start(t)
	var answer strings.Builder
	for i := 0; answer.Len() < 10000; i++ {
		fmt.Fprintf(&answer, "Line %d of a long answer, with words to wrap.", i)
		if i%3 == 2 {
			answer.WriteString("\n")
		} else {
			answer.WriteString(" ")
		}
	}
	want := answer.String()[:10000]
	gateway(t, e, []string{"1"}, func(tg *telegram.Telegram) channels.Handler {
		return func(ctx context.Context, inb channels.Inbound) {
			if err := tg.Send(ctx, inb.Conversation, channels.Outbound{Text: want, ReplyTo: inb.MessageID}); err != nil {
				t.Errorf("Send: %v", err)
			}
		}
	})
	e.UserSends(t, 1, "write me an essay", nil)
	waitFor(t, "three messages", func() bool { return len(e.BotMessages(t, 1)) >= 3 })
	time.Sleep(300 * time.Millisecond)
	got := e.BotMessages(t, 1)
	if len(got) != 3 {
		t.Fatalf("answer arrived as %d messages, want 3", len(got))
	}
	var joined strings.Builder
	for _, m := range got {
		if n := len([]rune(m.Text)); n > 4096 {
			t.Errorf("a message has %d characters, over 4096", n)
		}
		joined.WriteString(m.Text)
	}
	if joined.String() != want {
		t.Fatalf("concatenation differs from the answer (%d vs %d bytes)", joined.Len(), len(want))
	}
}

func TestEmulatorUnlistedSenderGetsNothing(t *testing.T) {
	e := telegramtest.Start(t)
	var mu sync.Mutex
	var seen []string
	gateway(t, e, []string{"1"}, func(tg *telegram.Telegram) channels.Handler {
		return func(ctx context.Context, inb channels.Inbound) {
			mu.Lock()
			seen = append(seen, inb.Principal)
			mu.Unlock()
			tg.Send(ctx, inb.Conversation, channels.Outbound{Text: "hi", ReplyTo: inb.MessageID})
		}
	})
	// A stranger sends a document, which would need a download.
	e.UserSends(t, 2, "", map[string]any{
		"caption":  "read this",
		"document": map[string]any{"file_id": "DOC1", "file_unique_id": "D1", "file_name": "notes.txt", "mime_type": "text/plain", "file_size": 100},
	})
	// Then the owner writes: once that is answered, the stranger's message
	// has certainly been read and processed before it.
	e.UserSends(t, 1, "hello", nil)
	waitFor(t, "the owner's reply", func() bool { return len(e.BotMessages(t, 1)) == 1 })
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 || seen[0] != "1" {
		t.Fatalf("handler saw %v, want only the listed sender 1", seen)
	}
	if n := e.Called("getFile"); n != 0 {
		t.Fatalf("getFile called %d times for a sender outside the allowlist", n)
	}
	if got := e.BotMessages(t, 2); len(got) != 0 {
		t.Fatalf("the stranger got %+v, want nothing", got)
	}
}

// TestEmulatorStopButtonCancelsAndKeepsTheText: the ⏹ Stop button of a
// live reply, pressed through the emulator with the callback data the
// emulator recorded, cancels the turn; Finish then writes the answer so
// far into the same message, which is neither deleted nor replaced by a
// new one. A press from another user's chat is refused and cancels
// nothing.
func TestEmulatorStopButtonCancelsAndKeepsTheText(t *testing.T) {
	e := telegramtest.Start(t)
	cancelled := make(chan struct{})
	finished := make(chan error, 1)
	gateway(t, e, []string{"1", "2"}, func(tg *telegram.Telegram) channels.Handler {
		return func(ctx context.Context, inb channels.Inbound) {
			if inb.Principal != "1" {
				return
			}
			turn, cancel := context.WithCancel(ctx)
			defer cancel()
			s, err := tg.StartStream(ctx, inb.Conversation, &channels.StreamOptions{ReplyTo: inb.MessageID, Cancel: func() { cancel(); close(cancelled) }})
			if err != nil {
				t.Error(err)
				return
			}
			s.Update("The answer so far")
			<-turn.Done()
			finished <- s.Finish(ctx, "The answer so far\n\n⏹ Stopped.")
		}
	})
	e.UserSends(t, 1, "go", nil)
	waitFor(t, "the live message", func() bool { return len(e.BotMessages(t, 1)) == 1 })
	live := e.BotMessages(t, 1)[0]
	data, ok := live.Button("⏹ Stop")
	if live.Text != "The answer so far" || !ok {
		t.Fatalf("live message = %+v, want the text with a ⏹ Stop button", live)
	}
	e.UserSends(t, 2, "hello", nil) // user 2 gets a chat with the bot
	e.UserPresses(t, 2, telegramtest.Message{ID: live.ID}, data)
	select {
	case <-cancelled:
		t.Fatal("a press from another chat stopped the turn")
	case <-time.After(time.Second):
	}
	e.UserPresses(t, 1, live, data)
	select {
	case err := <-finished:
		if err != nil {
			t.Fatalf("Finish: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the Stop press did not end the turn")
	}
	got := e.BotMessages(t, 1)
	if len(got) != 1 || got[0].ID != live.ID || got[0].Text != "The answer so far\n\n⏹ Stopped." {
		t.Fatalf("chat 1 holds %+v, want message %d with the answer so far and the stopped marker", got, live.ID)
	}
}
