package telegram

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	tele "gopkg.in/telebot.v3"

	"github.com/joshbot/joshbot/channels"
)

// Inline buttons carry "<kind>:<token>[:<arg>]" as callback data (at most
// 64 bytes). A token is random, issued for one chat, and lives in memory
// only until its turn, picker or approval settles; a press on a token the
// adapter no longer holds (it settled, or the gateway restarted) is told
// the button has expired.

const maxPending = 1024 // bound on live pickers and approvals

func newToken() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// stopEntry is a Stop button's binding to its turn.
type stopEntry struct {
	chat   int64
	cancel context.CancelFunc
}

// pickerEntry is a picker message's choices.
type pickerEntry struct {
	chat    int64
	title   string
	choices []channels.Choice
}

// approvalEntry is an approval prompt waiting for a press.
type approvalEntry struct {
	chat      int64
	requestID string
	decided   chan channels.Decision
}

// Choice is one button of a picker.
//
// Deprecated: use [channels.Choice]; this is the same type under its old
// name.
type Choice = channels.Choice

// Decision is the answer to an approval prompt.
//
// Deprecated: use [channels.Decision]; this is the same type under its old
// name.
type Decision = channels.Decision

// The decisions of an approval prompt under their old names.
//
// Deprecated: use [channels.DecisionDeny], [channels.DecisionAllow] and
// [channels.DecisionAllowSession], the same values.
const (
	DecisionDeny         = channels.DecisionDeny
	DecisionAllow        = channels.DecisionAllow
	DecisionAllowSession = channels.DecisionAllowSession
)

// SendPicker implements [channels.Picker]: it posts title with one inline
// button per choice (two per row).
// A press by a sender the allowlist admits is delivered to the sink as if
// the presser had typed the choice's Value in that chat, and the picker is
// then edited to show what was chosen. replyTo is an Inbound.MessageID to
// thread to, or empty.
func (t *Telegram) SendPicker(ctx context.Context, conversation, title string, choices []channels.Choice, replyTo string) error {
	if len(choices) == 0 {
		return errors.New("telegram: a picker needs at least one choice")
	}
	chat, thread, err := parseConversation(conversation)
	if err != nil {
		return err
	}
	tok := newToken()
	markup := &tele.ReplyMarkup{}
	var row []tele.InlineButton
	for i, c := range choices {
		row = append(row, tele.InlineButton{Text: c.Label, Data: "p:" + tok + ":" + strconv.Itoa(i)})
		if len(row) == 2 || i == len(choices)-1 {
			markup.InlineKeyboard = append(markup.InlineKeyboard, row)
			row = nil
		}
	}
	t.mu.Lock()
	if len(t.pickers) >= maxPending {
		clear(t.pickers) // oldest first would need an order; a full reset only expires menus
	}
	t.pickers[tok] = &pickerEntry{chat: chat, title: title, choices: choices}
	t.mu.Unlock()
	if _, err := t.sendText(ctx, chat, thread, replyTarget(replyTo), title, markup); err != nil {
		t.mu.Lock()
		delete(t.pickers, tok)
		t.mu.Unlock()
		return err
	}
	return nil
}

// Approve implements [channels.ApprovalPrompter]: it posts prompt with
// Allow / Deny buttons (and "Allow for session" when offerSession) bound
// to this chat and requestID, and waits for a press from a sender the
// allowlist admits. It returns [channels.DecisionDeny] when ctx ends first
// (the turn's own timeout bounds the wait; the prompt is then edited to
// say so), and DecisionDeny with an error when the prompt could not be
// posted: the gate fails closed.
func (t *Telegram) Approve(ctx context.Context, conversation, requestID, prompt string, offerSession bool) (channels.Decision, error) {
	chat, thread, err := parseConversation(conversation)
	if err != nil {
		return channels.DecisionDeny, err
	}
	tok := newToken()
	row := []tele.InlineButton{
		{Text: "✅ Allow", Data: "a:" + tok + ":a"},
		{Text: "⛔ Deny", Data: "a:" + tok + ":d"},
	}
	if offerSession {
		row = append(row, tele.InlineButton{Text: "Allow for session", Data: "a:" + tok + ":s"})
	}
	e := &approvalEntry{chat: chat, requestID: requestID, decided: make(chan channels.Decision, 1)}
	t.mu.Lock()
	if len(t.approvals) >= maxPending {
		t.mu.Unlock()
		return channels.DecisionDeny, errors.New("telegram: too many approvals waiting")
	}
	t.approvals[tok] = e
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		delete(t.approvals, tok)
		t.mu.Unlock()
	}()
	sent, err := t.sendText(ctx, chat, thread, 0, prompt, &tele.ReplyMarkup{InlineKeyboard: [][]tele.InlineButton{row}})
	if err != nil {
		return channels.DecisionDeny, err
	}
	select {
	case d := <-e.decided:
		return d, nil
	case <-ctx.Done():
		if len(sent) > 0 {
			last := sent[len(sent)-1]
			t.editPiece(context.WithoutCancel(ctx), chat, last.ID, prompt+"\n\n⛔ Denied: no answer in time.", nil, nil)
		}
		return channels.DecisionDeny, nil
	}
}

// handleCallback answers an inline button press. It runs on the poller
// goroutine, so a Stop press cancels its turn directly, never queued
// behind the turn it is meant to stop.
func (t *Telegram) handleCallback(ctx context.Context, sink channels.Sink, g gate, update int, cb *tele.Callback) error {
	answer := func(text string) {
		if err := t.call(ctx, func() error {
			return t.bot.Respond(cb, &tele.CallbackResponse{Text: text})
		}); err != nil {
			t.log.Debug("callback not answered", "err", t.scrub(err))
		}
	}
	if cb.Sender == nil || cb.Message == nil || cb.Message.Chat == nil {
		answer("")
		return nil
	}
	principal, allowed := g(cb.Sender)
	if !allowed {
		answer("You are not allowed to use this bot.")
		return nil
	}
	chat := cb.Message.Chat.ID
	kind, rest, _ := strings.Cut(cb.Data, ":")
	tok, arg, _ := strings.Cut(rest, ":")
	expired := func() error { answer("This button has expired."); return nil }

	switch kind {
	case "s":
		t.mu.Lock()
		e := t.stops[tok]
		if e != nil && e.chat == chat {
			delete(t.stops, tok)
		}
		t.mu.Unlock()
		if e == nil || e.chat != chat {
			return expired()
		}
		e.cancel()
		answer("Stopping…")
		return nil

	case "p":
		t.mu.Lock()
		e := t.pickers[tok]
		t.mu.Unlock()
		i, err := strconv.Atoi(arg)
		if e == nil || e.chat != chat || err != nil || i < 0 || i >= len(e.choices) {
			return expired()
		}
		c := e.choices[i]
		inb := channels.Inbound{
			Channel:      Name,
			Conversation: conversationID(chat, threadOf(cb.Message)),
			Principal:    principal,
			Text:         c.Value,
			MessageID:    messageID(update, cb.Message.ID),
			IsDirect:     cb.Message.Chat.Type == tele.ChatPrivate,
			Mentioned:    true, // pressing the bot's own button addresses it
		}
		if err := sink.Deliver(ctx, inb); err != nil {
			return err // not acknowledged; the press comes back
		}
		t.mu.Lock()
		delete(t.pickers, tok)
		t.mu.Unlock()
		answer(c.Label)
		if err := t.editPiece(ctx, chat, cb.Message.ID, e.title+"\n\n✓ "+c.Label, nil, nil); err != nil {
			t.log.Debug("picker not updated", "err", t.scrub(err))
		}
		return nil

	case "a":
		t.mu.Lock()
		e := t.approvals[tok]
		if e != nil && e.chat == chat {
			delete(t.approvals, tok)
		}
		t.mu.Unlock()
		if e == nil || e.chat != chat {
			return expired()
		}
		d := channels.DecisionDeny
		switch arg {
		case "a":
			d = channels.DecisionAllow
		case "s":
			d = channels.DecisionAllowSession
		}
		e.decided <- d
		answer(strings.ToUpper(d.String()[:1]) + d.String()[1:])
		text := cb.Message.Text
		if err := t.editPiece(ctx, chat, cb.Message.ID, fmt.Sprintf("%s\n\n%s by %s (request %s)", text, d, who(cb.Sender), e.requestID), nil, nil); err != nil {
			t.log.Debug("approval prompt not updated", "err", t.scrub(err))
		}
		return nil
	}
	return expired()
}

func who(u *tele.User) string {
	if u.Username != "" {
		return "@" + u.Username
	}
	return strconv.FormatInt(u.ID, 10)
}
