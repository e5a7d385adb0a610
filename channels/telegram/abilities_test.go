package telegram_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/joshbot/joshbot/channels"
)

// TestAbilitiesThroughTheContract drives every optional ability the way the
// gateway does: found by type assertion on a channels.Channel, with the
// channel-neutral types only, against the fake Bot API.
func TestAbilitiesThroughTheContract(t *testing.T) {
	h := newHarness(t, nil, true)
	var ch channels.Channel = h.tg
	ctx := context.Background()

	t.Run("typing", func(t *testing.T) {
		ty, ok := ch.(channels.TypingIndicator)
		if !ok {
			t.Fatal("Telegram is not a channels.TypingIndicator")
		}
		stop := ty.Typing(ctx, "42")
		waitFor(t, "the indicator", func() bool { return len(h.fake.callsOf("sendChatAction")) >= 1 })
		stop()
	})

	t.Run("streaming with a stop button", func(t *testing.T) {
		st, ok := ch.(channels.Streamer)
		if !ok {
			t.Fatal("Telegram is not a channels.Streamer")
		}
		var cancelled atomic.Bool
		s, err := st.StartStream(ctx, "42", &channels.StreamOptions{ReplyTo: "7:70", Cancel: func() { cancelled.Store(true) }})
		if err != nil {
			t.Fatal(err)
		}
		before := len(h.fake.callsOf("sendMessage"))
		s.Status("⚙️ shell: ls")
		waitFor(t, "the live message", func() bool { return len(h.fake.callsOf("sendMessage")) == before+1 })
		live := h.fake.callsOf("sendMessage")[before]
		if live.Params["reply_to_message_id"] != "70" {
			t.Errorf("live message threaded to %q, want 70", live.Params["reply_to_message_id"])
		}
		press(h, 42, 42, 1001, buttons(t, live)["⏹ Stop"])
		waitFor(t, "the stop press to cancel the turn", cancelled.Load)
		if err := s.Finish(ctx, "partial answer"); err != nil {
			t.Fatal(err)
		}
		if err := s.Finish(ctx, "again"); err != nil {
			t.Fatalf("a second Finish = %v, want a no-op", err)
		}
		edits := h.fake.callsOf("editMessageText")
		if len(edits) == 0 || edits[len(edits)-1].Params["text"] != "partial answer" {
			t.Fatalf("edits = %+v, want the final text in the live message", edits)
		}
	})

	t.Run("bad conversation", func(t *testing.T) {
		s, err := ch.(channels.Streamer).StartStream(ctx, "not-a-chat", nil)
		if err == nil || s != nil {
			t.Fatalf("StartStream(bad) = %v, %v; want a nil Stream and an error", s, err)
		}
	})

	t.Run("picker", func(t *testing.T) {
		p, ok := ch.(channels.Picker)
		if !ok {
			t.Fatal("Telegram is not a channels.Picker")
		}
		before := len(h.fake.callsOf("sendMessage"))
		if err := p.SendPicker(ctx, "42", "Tap to switch:", []channels.Choice{{Label: "A", Value: "/model a"}}, ""); err != nil {
			t.Fatal(err)
		}
		press(h, 42, 42, 1002, buttons(t, h.fake.callsOf("sendMessage")[before])["A"])
		waitFor(t, "the pick delivered", func() bool {
			for _, inb := range h.sink.delivered() {
				if inb.Text == "/model a" {
					return true
				}
			}
			return false
		})
		if err := p.SendPicker(ctx, "42", "nothing", nil, ""); err == nil {
			t.Error("a picker with no choices was accepted")
		}
	})

	t.Run("approval", func(t *testing.T) {
		a, ok := ch.(channels.ApprovalPrompter)
		if !ok {
			t.Fatal("Telegram is not a channels.ApprovalPrompter")
		}
		before := len(h.fake.callsOf("sendMessage"))
		got := make(chan channels.Decision, 1)
		go func() {
			d, _ := a.Approve(ctx, "42", "r-1", "Run `ls`?", true)
			got <- d
		}()
		waitFor(t, "the prompt", func() bool { return len(h.fake.callsOf("sendMessage")) == before+1 })
		press(h, 42, 42, 1003, buttons(t, h.fake.callsOf("sendMessage")[before])["Allow for session"])
		if d := <-got; d != channels.DecisionAllowSession {
			t.Fatalf("Approve = %v, want %v", d, channels.DecisionAllowSession)
		}
	})

	t.Run("command menu", func(t *testing.T) {
		m, ok := ch.(channels.CommandMenu)
		if !ok {
			t.Fatal("Telegram is not a channels.CommandMenu")
		}
		long := strings.Repeat("é", 300)
		if err := m.SetCommands(ctx, []channels.Command{{Name: "new", Description: long}}); err != nil {
			t.Fatalf("a long description was refused, want it shortened: %v", err)
		}
		c := h.fake.callsOf("setMyCommands")
		if len(c) != 1 || !strings.Contains(c[0].Params["commands"], strings.Repeat("é", 255)+"…") || strings.Contains(c[0].Params["commands"], strings.Repeat("é", 256)) {
			t.Fatalf("setMyCommands = %+v, want the description cut to 255 characters and an ellipsis", c)
		}
		if err := m.SetCommands(ctx, []channels.Command{{Name: "new", Description: " "}}); err == nil || !strings.Contains(err.Error(), `"new"`) {
			t.Fatalf("an empty description = %v, want an error naming the command", err)
		}
	})
}
