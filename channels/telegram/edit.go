package telegram

import (
	"context"
	"strconv"
	"unicode/utf8"

	"github.com/joshbot/joshbot/channels"
)

var (
	_ channels.Editor      = (*Telegram)(nil)
	_ channels.ShownStream = (*Stream)(nil)
)

// EditMessage implements [channels.Editor] with editMessageText: the bot's
// message id in conversation gets text (its start cut with "…" to fit one
// message) and loses its buttons, such as a live reply's Stop.
func (t *Telegram) EditMessage(ctx context.Context, conversation, id, text string) error {
	chat, _, err := parseConversation(conversation)
	if err != nil {
		return err
	}
	msgID, err := strconv.Atoi(id)
	if err != nil || msgID <= 0 {
		return errorf("telegram: message id %q is not a Telegram message id", id)
	}
	if n := utf8.RuneCountInString(text); n > maxMessage {
		r := []rune(text)
		text = "…" + string(r[n-(maxMessage-1):])
	}
	return t.editPiece(ctx, chat, msgID, text, nil, nil)
}

// OnShown implements [channels.ShownStream]: fn hears of each post and
// edit of the live message (not of a draft, which is no message).
func (s *Stream) OnShown(fn func(id, text string)) {
	s.mu.Lock()
	s.onShown = fn
	s.mu.Unlock()
}
