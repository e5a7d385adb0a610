package telegram

import (
	"context"
	"fmt"
	"sync"
	"time"

	tele "gopkg.in/telebot.v3"
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

// Typing shows "typing…" in conversation until the returned stop is called
// or ctx ends, renewing it every four seconds. stop is idempotent and
// waits for the keep-alive to end, so after it returns no further
// indicator is sent; Telegram clears the last one when the reply arrives
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
type Command struct {
	// Name is the command without its slash: 1-32 lowercase letters,
	// digits or underscores.
	Name string
	// Description is shown beside it: 1-256 characters.
	Description string
}

var reCommand = lazyRE(`^[a-z0-9_]{1,32}$`)

// SetCommands publishes the command menu Telegram shows under "/". The
// whole list is checked first; an entry Telegram would refuse is an error
// naming it, and nothing is sent.
func (t *Telegram) SetCommands(ctx context.Context, menu []Command) error {
	cmds := make([]tele.Command, 0, len(menu))
	for i, c := range menu {
		if !reCommand().MatchString(c.Name) {
			return fmt.Errorf("telegram: command %d %q must be 1-32 lowercase letters, digits or underscores", i, c.Name)
		}
		n := len([]rune(c.Description))
		if n < 1 || n > 256 {
			return fmt.Errorf("telegram: command %q needs a description of 1-256 characters (has %d)", c.Name, n)
		}
		cmds = append(cmds, tele.Command{Text: c.Name, Description: c.Description})
	}
	if err := t.call(ctx, func() error { return t.bot.SetCommands(cmds) }); err != nil {
		return fmt.Errorf("telegram: setMyCommands: %s", t.scrub(err))
	}
	return nil
}
