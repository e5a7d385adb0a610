package discord

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/joshbot/joshbot/channels"
)

// principal answers the allowlist question for one user: the user id,
// unless the allowlist admits the sender only as "@username".
func principal(sink channels.Sink, u *discordgo.User) (string, bool) {
	a, ok := sink.(Allower)
	if !ok {
		return u.ID, false
	}
	if a.Allowed(Name, u.ID) {
		return u.ID, true
	}
	if u.Username != "" && a.Allowed(Name, "@"+u.Username) {
		return "@" + u.Username, true
	}
	return u.ID, false
}

// onMessage runs on discordgo's reading goroutine (SyncEvents), so an
// event is handled completely before the next is read.
func (d *Discord) onMessage(_ *discordgo.Session, mc *discordgo.MessageCreate) {
	sink, ctx := d.running()
	if sink == nil || mc.Message == nil || d.cursors.handled(mc.ChannelID, mc.ID) {
		return
	}
	d.handleRetrying(ctx, sink, mc.Message)
}

// handleRetrying handles m until that succeeds, then moves its
// conversation's catch-up cursor past it. It reports false when ctx ended
// first.
func (d *Discord) handleRetrying(ctx context.Context, sink channels.Sink, m *discordgo.Message) bool {
	var engaged bool
	ok := d.deliverRetrying(ctx, m.ID, func(ctx context.Context) error {
		var err error
		engaged, err = d.handleMessage(ctx, sink, m)
		return err
	})
	if ok {
		d.cursors.advance(m.ChannelID, m.GuildID, m.ID, engaged, d.now())
	}
	return ok
}

// deliverRetrying runs try until it succeeds or ctx ends, and reports
// whether it succeeded. Discord will not send the event again, so giving
// up would lose it.
func (d *Discord) deliverRetrying(ctx context.Context, id string, try func(context.Context) error) bool {
	var bo backoff
	for {
		err := try(ctx)
		if err == nil {
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		d.log.Warn("message not delivered; retrying", "message", id, "err", d.scrub(err))
		if bo == nil {
			bo = d.newBackoff()
		}
		if bo.Sleep(ctx) != nil {
			d.log.Error("message not delivered before shutdown", "message", id)
			return false
		}
	}
}

// addressed reports whether m addresses the bot structurally: the bot in
// its mentions list, or a reply to one of the bot's messages.
func addressed(m *discordgo.Message, me *discordgo.User) bool {
	if me == nil {
		return false
	}
	for _, u := range m.Mentions {
		if u != nil && u.ID == me.ID {
			return true
		}
	}
	if r := m.ReferencedMessage; r != nil && r.Author != nil && r.Author.ID == me.ID {
		return true
	}
	return false
}

// stripSelf removes the bot's own mention tokens from text.
func stripSelf(text string, me *discordgo.User) string {
	if me == nil {
		return text
	}
	text = strings.ReplaceAll(text, "<@"+me.ID+">", "")
	text = strings.ReplaceAll(text, "<@!"+me.ID+">", "")
	return strings.TrimSpace(text)
}

// handleMessage hands m to sink. engaged reports that the bot answers in
// m's conversation: an allowed sender wrote to it directly or addressed
// it, which is what starts catch-up tracking for the conversation.
func (d *Discord) handleMessage(ctx context.Context, sink channels.Sink, m *discordgo.Message) (engaged bool, err error) {
	me := d.self()
	if m.Author == nil || m.Author.Bot || me != nil && m.Author.ID == me.ID {
		return false, nil // bots, the adapter itself included, never trigger it
	}
	who, allowed := principal(sink, m.Author)
	inb := channels.Inbound{
		Channel:      Name,
		Conversation: m.ChannelID,
		Principal:    who,
		MessageID:    m.ID,
		IsDirect:     m.GuildID == "",
		Mentioned:    addressed(m, me) || d.respondAll[m.ChannelID],
		Text:         stripSelf(m.Content, me),
	}
	if !allowed {
		// The sink logs and drops it; nothing is downloaded or answered.
		return false, sink.Deliver(ctx, inb)
	}
	engaged = inb.IsDirect || inb.Mentioned
	var notes []string
	for _, a := range m.Attachments {
		att, note, err := d.fetch(ctx, a)
		if err != nil {
			return false, err
		}
		if note != "" {
			notes = append(notes, note)
			continue
		}
		inb.Attachments = append(inb.Attachments, att)
	}
	if len(notes) > 0 && (inb.IsDirect || inb.Mentioned) {
		if err := d.Send(ctx, inb.Conversation, channels.Outbound{Text: strings.Join(notes, "\n"), ReplyTo: inb.MessageID}); err != nil {
			d.log.Warn("reply about refused attachments not sent", "err", d.scrub(err))
		}
	}
	if inb.Text == "" && len(inb.Attachments) == 0 {
		return engaged, nil
	}
	if inb.Text == "" {
		inb.Text = "[The user sent an attachment.]"
	}
	return engaged, sink.Deliver(ctx, inb)
}

// errTransient marks a download failure worth retrying.
var errTransient = errors.New("transient")

// fetch saves one attachment into the spool. note, when set, says why it
// was refused (to tell the user); err is a transient failure.
func (d *Discord) fetch(ctx context.Context, a *discordgo.MessageAttachment) (channels.Attachment, string, error) {
	if d.opts.SpoolDir == "" {
		return channels.Attachment{}, fmt.Sprintf("I can't take attachments here (%s): this gateway has no media spool configured.", a.Filename), nil
	}
	if a.Size > channels.MaxAttachmentBytes {
		return channels.Attachment{}, fmt.Sprintf("%s is %d MiB; I can take files up to %d MiB.", a.Filename, a.Size>>20, channels.MaxAttachmentBytes>>20), nil
	}
	u, err := url.Parse(a.URL)
	if err != nil || u.Scheme != "https" && u.Scheme != "http" || !d.hostOK(u.Hostname()) {
		return channels.Attachment{}, fmt.Sprintf("%s was not fetched: it is not on Discord's CDN.", a.Filename), nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return channels.Attachment{}, "", err
	}
	resp, err := d.download.Do(req)
	if err != nil {
		return channels.Attachment{}, "", errorf("discord: download %s: %w", a.Filename, errors.Join(errTransient, err))
	}
	defer resp.Body.Close()
	att, note, err := channels.SpoolResponse(d.opts.SpoolDir, resp, a.ContentType, a.Filename, a.Filename)
	if err != nil {
		return channels.Attachment{}, "", errorf("discord: %w", err)
	}
	return att, note, nil
}
