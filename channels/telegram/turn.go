package telegram

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"

	tele "gopkg.in/telebot.v3"

	"github.com/joshbot/joshbot/channels"
)

// Reactions the adapter sets when Options.Reactions is on. 👍 rather than
// ✅ for a reply: ✅ is premium-only and a bot's attempt is refused.
const (
	ReactionAdmitted = "👀"
	ReactionReplied  = "👍"
)

// typingEvery is how often the typing indicator is renewed; Telegram shows
// it for about five seconds.
const typingEvery = 4 * time.Second

// Typing implements [channels.TypingIndicator]: it shows "typing…" in
// conversation until the returned stop is called or ctx ends, renewing it
// every four seconds. stop is idempotent and waits for the keep-alive to
// end, so after it returns no further indicator is sent; Telegram clears the last one when the reply arrives
// or after five seconds. Failures are logged at debug: an indicator is
// never worth failing a turn over.
func (t *Telegram) Typing(ctx context.Context, conversation string) (stop func()) {
	chat, thread, err := parseConversation(conversation)
	if err != nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	send := func() {
		var threads []int
		if thread != 0 {
			threads = []int{thread}
		}
		if err := t.bot.Notify(tele.ChatID(chat), tele.Typing, threads...); err != nil {
			t.log.Debug("typing indicator not sent", "err", t.scrub(err))
		}
	}
	go func() {
		defer close(done)
		for {
			send()
			select {
			case <-ctx.Done():
				return
			case <-t.clock.after(typingEvery):
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			cancel()
			<-done
		})
	}
}

// react sets emoji on a message when reactions are enabled. It is best
// effort: a bot without permission to react only logs at debug.
func (t *Telegram) react(ctx context.Context, chat int64, message int, emoji string) {
	if !t.opts.Reactions || message == 0 {
		return
	}
	err := t.raw(ctx, "setMessageReaction", map[string]any{
		"chat_id":    chat,
		"message_id": message,
		"reaction":   []tele.Reaction{{Type: "emoji", Emoji: emoji}},
	})
	if err != nil {
		t.log.Debug("reaction not set", "emoji", emoji, "err", t.scrub(err))
	}
}

// Command is one entry of the bot's command menu.
//
// Deprecated: use [channels.Command]; this is the same type under its old
// name.
type Command = channels.Command

// maxDescription is the longest command description Telegram shows.
const maxDescription = 256

// validCommand reports whether name is a command name Telegram accepts:
// 1-32 lowercase letters, digits or underscores. (Checked by hand: the
// regular expression it replaces cost a gateway 26 KB of compiled program
// at every start.)
func validCommand(name string) bool {
	if len(name) < 1 || len(name) > 32 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '_' {
			return false
		}
	}
	return true
}

// SetCommands implements [channels.CommandMenu]: it publishes the command
// menu Telegram shows under "/". The whole list is checked first; a name
// Telegram would refuse (1-32 lowercase letters, digits or underscores) or
// an empty description is an error naming it, and nothing is sent. A
// description over 256 characters is shortened to fit, ending with "…".
func (t *Telegram) SetCommands(ctx context.Context, menu []channels.Command) error {
	for i, c := range menu {
		if !validCommand(c.Name) {
			return errorf("telegram: command %d %q must be 1-32 lowercase letters, digits or underscores", i, c.Name)
		}
		if strings.TrimSpace(c.Description) == "" {
			return errorf("telegram: command %q needs a description", c.Name)
		}
	}
	body := setMyCommandsBody(menu)
	if err := t.call(ctx, func() error { _, err := t.bot.Raw("setMyCommands", body); return err }); err != nil {
		return errorf("telegram: setMyCommands: %s", t.scrub(err))
	}
	return nil
}

// setMyCommandsBody is the setMyCommands request for menu, the bytes
// telebot's SetCommands sends, written without the reflection over
// telebot's parameter structs that an idle gateway would otherwise keep
// on its heap. telebot re-encodes the raw message with HTML escaping, as
// it did the structs.
func setMyCommandsBody(menu []channels.Command) json.RawMessage {
	if len(menu) == 0 {
		return json.RawMessage(`{}`) // telebot omits an empty list
	}
	b := []byte(`{"commands":[`)
	for i, c := range menu {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"command":`...)
		b = appendJSONString(b, c.Name)
		b = append(b, `,"description":`...)
		b = appendJSONString(b, shorten(c.Description, maxDescription))
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

// appendJSONString appends s to b as a JSON string.
func appendJSONString(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string always encodes
	return append(b, q...)
}

// shorten returns s cut to at most n runes, ending with "…" when cut.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
