package telegram

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	tele "gopkg.in/telebot.v3"

	"github.com/joshbot/joshbot/channels"
)

// Conversation ids are "<chat id>" or, inside a forum topic,
// "<chat id>:<topic id>", so each topic is its own conversation.
func conversationID(chat int64, thread int) string {
	if thread != 0 {
		return fmt.Sprintf("%d:%d", chat, thread)
	}
	return strconv.FormatInt(chat, 10)
}

// parseConversation reverses conversationID.
func parseConversation(conv string) (chat int64, thread int, err error) {
	c, th, hasThread := strings.Cut(conv, ":")
	chat, err = strconv.ParseInt(c, 10, 64)
	if err != nil {
		return 0, 0, errorf("telegram: conversation %q is not a chat id", conv)
	}
	if hasThread {
		thread, err = strconv.Atoi(th)
		if err != nil {
			return 0, 0, errorf("telegram: conversation %q has a bad topic id", conv)
		}
	}
	return chat, thread, nil
}

// Message ids are "<update id>:<message id>". The update id makes it unique
// and stable across redeliveries (what the router deduplicates on); the
// message id is what a reply threads to, so the gateway passes the id back
// unchanged as Outbound.ReplyTo.
func messageID(update, message int) string { return fmt.Sprintf("%d:%d", update, message) }

// replyTarget extracts the Telegram message id from an Inbound.MessageID;
// 0 when there is none.
func replyTarget(id string) int {
	_, m, ok := strings.Cut(id, ":")
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(m)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

func threadOf(m *tele.Message) int {
	if m.TopicMessage {
		return m.ThreadID
	}
	return 0
}

func (t *Telegram) handleUpdate(ctx context.Context, sink channels.Sink, g gate, u tele.Update) error {
	switch {
	case u.Message != nil:
		return t.handleMessage(ctx, sink, g, u.ID, u.Message, false)
	case u.EditedMessage != nil:
		return t.handleMessage(ctx, sink, g, u.ID, u.EditedMessage, true)
	case u.Callback != nil:
		return t.handleCallback(ctx, sink, g, u.ID, u.Callback)
	}
	return nil
}

// handleMessage normalizes one message and hands it to the sink. The
// allowlist is consulted before anything is downloaded or answered.
func (t *Telegram) handleMessage(ctx context.Context, sink channels.Sink, g gate, update int, m *tele.Message, edited bool) error {
	if m.Sender == nil || m.Sender.IsBot || m.Chat == nil {
		return nil
	}
	if m.Sticker != nil {
		return nil // stickers carry nothing to act on
	}
	principal, allowed := g(m.Sender)
	inb := channels.Inbound{
		Channel:      Name,
		Conversation: conversationID(m.Chat.ID, threadOf(m)),
		Principal:    principal,
		MessageID:    messageID(update, m.ID),
		IsDirect:     m.Chat.Type == tele.ChatPrivate,
		Mentioned:    t.mentioned(m),
	}
	text := t.stripCommandSuffix(m)
	if text == "" {
		text = m.Caption
	}
	if !allowed {
		// The sink logs and drops it; nothing is downloaded or answered.
		inb.Text = text
		return sink.Deliver(ctx, inb)
	}
	addressed := inb.IsDirect || inb.Mentioned
	body, atts, reply, err := t.readMedia(ctx, m, text)
	if err != nil {
		return err
	}
	if reply != "" {
		if addressed {
			if err := t.Send(ctx, inb.Conversation, channels.Outbound{Text: reply, ReplyTo: inb.MessageID}); err != nil {
				t.log.Warn("reply about unsupported media not sent", "err", t.scrub(err))
			}
		}
		if body == "" {
			return nil // answered directly: no model turn is spent
		}
	}
	if edited {
		body = "[The user edited an earlier message; treat this as a correction of it, not a new request.]\n" + body
	}
	inb.Text = body
	inb.Attachments = atts
	if err := sink.Deliver(ctx, inb); err != nil {
		return err
	}
	if addressed && !edited {
		t.react(ctx, m.Chat.ID, m.ID, ReactionAdmitted)
	}
	return nil
}

// stripCommandSuffix returns m's text with "@<bot name>" removed from a
// leading command ("/model@JoshBot gpt" becomes "/model gpt"), so a command
// picked from the group menu reads exactly like one typed in a private
// chat. A command addressed to another bot is left alone.
func (t *Telegram) stripCommandSuffix(m *tele.Message) string {
	t.mu.Lock()
	me := t.me
	t.mu.Unlock()
	if me == nil || me.Username == "" || len(m.Entities) == 0 {
		return m.Text
	}
	e := m.Entities[0]
	if e.Type != tele.EntityCommand || e.Offset != 0 {
		return m.Text
	}
	cmd := m.EntityText(e)
	name, to, ok := strings.Cut(cmd, "@")
	if !ok || !strings.EqualFold(to, me.Username) || !strings.HasPrefix(m.Text, cmd) {
		return m.Text
	}
	return name + m.Text[len(cmd):]
}

// mentioned reports whether m addresses the bot structurally: an @mention
// entity naming it, a text_mention of its user, a command suffixed with its
// name, or a reply to one of its messages. Never a substring search.
func (t *Telegram) mentioned(m *tele.Message) bool {
	t.mu.Lock()
	me := t.me
	t.mu.Unlock()
	if me == nil {
		return false
	}
	if m.ReplyTo != nil && m.ReplyTo.Sender != nil && m.ReplyTo.Sender.ID == me.ID {
		return true
	}
	entities := m.Entities
	if m.Text == "" {
		entities = m.CaptionEntities
	}
	for _, e := range entities {
		switch e.Type {
		case tele.EntityMention:
			if me.Username != "" && strings.EqualFold(m.EntityText(e), "@"+me.Username) {
				return true
			}
		case tele.EntityTMention:
			if e.User != nil && e.User.ID == me.ID {
				return true
			}
		case tele.EntityCommand:
			_, to, ok := strings.Cut(m.EntityText(e), "@")
			if ok && me.Username != "" && strings.EqualFold(to, me.Username) {
				return true
			}
		}
	}
	return false
}
