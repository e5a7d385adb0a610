package telegram

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	tele "gopkg.in/telebot.v3"

	"github.com/joshbot/joshbot/bus"
	"github.com/joshbot/joshbot/channels"
)

// maxMessage is Telegram's limit on one message's text.
const maxMessage = 4096

// Send implements [channels.Channel]. The text is split with
// [channels.Chunk] at 4,096 characters, each piece rendered from Markdown to
// Telegram HTML (and resent as its plain Markdown source if Telegram
// refuses the markup), the first piece threaded to msg.ReplyTo. A reply of
// more than Options.MaxChunks pieces goes as a short head message with the
// whole text attached as reply.md ([channels.LongReply]). A voice
// rendition (msg.VoicePath, a spool file) follows as a voice note, then the
// files, each as a photo or a document by its first 512 bytes. A reply of
// one file and a text that fits a caption (1,024 characters) goes as one
// upload with the text as its caption.
//
// Messages keep to Telegram's pace per chat (a burst of three, then one a
// second, one every three seconds in a group). When ctx ends, nothing more
// is sent: the error wraps ctx's, and the log says how much was cut off.
func (t *Telegram) Send(ctx context.Context, conversation string, msg channels.Outbound) error {
	chat, thread, err := parseConversation(conversation)
	if err != nil {
		return err
	}
	msg = t.fitReply(chat, msg)
	replyTo := replyTarget(msg.ReplyTo)
	if replyTo != 0 {
		t.react(ctx, chat, replyTo, ReactionReplied)
	}
	var errs []error
	caption := ""
	if asCaption(msg) {
		caption, msg.Text = msg.Text, ""
	}
	if strings.TrimSpace(msg.Text) != "" {
		if _, err := t.sendText(ctx, chat, thread, replyTo, msg.Text, nil); err != nil {
			errs = append(errs, err)
		}
		replyTo = 0
	}
	if msg.VoicePath != "" {
		if err := t.sendVoice(ctx, chat, thread, replyTo, msg.VoicePath); err != nil {
			errs = append(errs, err)
		}
		replyTo = 0
	}
	for _, f := range msg.Files {
		if ctx.Err() != nil {
			t.log.Warn("reply cut off by shutdown: a file was not sent", "chat", chat, "file", f.Name)
			errs = append(errs, errorf("telegram: %s not sent: %w", f.Name, ctx.Err()))
			continue
		}
		if err := t.sendFile(ctx, chat, thread, replyTo, f, caption); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// maxCaption is Telegram's limit on a media caption, in UTF-16 units.
const maxCaption = 1024

// asCaption reports whether msg's text goes as the caption of its one
// file rather than as a message of its own: one file, no voice, and a
// text that fits a caption.
func asCaption(msg channels.Outbound) bool {
	if len(msg.Files) != 1 || msg.VoicePath != "" || strings.TrimSpace(msg.Text) == "" {
		return false
	}
	return len(utf16.Encode([]rune(msg.Text))) <= maxCaption
}

// fitReply turns a reply longer than Options.MaxChunks messages into a
// head message and a reply.md document.
func (t *Telegram) fitReply(chat int64, msg channels.Outbound) channels.Outbound {
	n := t.pieceCount(msg.Text)
	out, cut, long := channels.LongReply(msg, n, t.opts.MaxChunks, t.limits.File)
	if cut > 0 {
		t.log.Warn("reply larger than a Telegram document: only its beginning was attached; the whole answer is in the session",
			"chat", chat, "bytes", len(msg.Text), "bytes_cut", cut)
	}
	if long {
		return out
	}
	return msg
}

// pieceCount returns how many messages text would take, or any number
// past the cap when it is clearly longer: splitting a 32 MiB answer only
// to count its pieces would cost more than sending it.
func (t *Telegram) pieceCount(text string) int {
	return channels.PieceCount(text, t.opts.MaxChunks, maxMessage, pieces)
}

// cutOff logs the part of a reply that shutdown kept from being sent and
// returns the error for it.
func (t *Telegram) cutOff(chat int64, unsent []string, err error) error {
	chars := 0
	for _, p := range unsent {
		chars += utf8.RuneCountInString(p)
	}
	t.log.Warn("reply cut off by shutdown; the whole answer is in the session",
		"chat", chat, "pieces_unsent", len(unsent), "chars_unsent", chars)
	return errorf("telegram: reply cut off with %d pieces unsent: %w", len(unsent), err)
}

// pieces splits text for sending. Chunk counts runes; Telegram counts
// UTF-16 units, so a piece heavy with astral characters is split again.
func pieces(text string) []string {
	var out []string
	for _, p := range channels.Chunk(text, maxMessage) {
		if len(utf16.Encode([]rune(p))) > maxMessage {
			out = append(out, channels.Chunk(p, maxMessage/2)...)
			continue
		}
		out = append(out, p)
	}
	return out
}

// sendText sends text as one or more messages and returns them. markup, if
// any, goes on the last one.
func (t *Telegram) sendText(ctx context.Context, chat int64, thread, replyTo int, text string, markup *tele.ReplyMarkup) ([]*tele.Message, error) {
	var sent []*tele.Message
	var open *string
	ps := pieces(text)
	for i, p := range ps {
		opts := &tele.SendOptions{ThreadID: thread, AllowWithoutReply: true}
		if i == 0 && replyTo != 0 {
			opts.ReplyTo = &tele.Message{ID: replyTo}
		}
		if i == len(ps)-1 {
			opts.ReplyMarkup = markup
		}
		if err := t.pace(ctx, chat); err != nil {
			return sent, t.cutOff(chat, ps[i:], err)
		}
		m, err := t.sendPiece(ctx, chat, p, open, opts)
		if err != nil {
			if ctx.Err() != nil {
				return sent, t.cutOff(chat, ps[i:], ctx.Err())
			}
			return sent, errorf("telegram: send piece %d of %d: %s", i+1, len(ps), t.scrub(err))
		}
		sent = append(sent, m)
		open = fenceAfter(p, open)
	}
	return sent, nil
}

// sendPiece sends one piece as HTML, falling back to its plain source
// when Telegram refuses the markup: the text is never lost to a renderer
// mistake.
func (t *Telegram) sendPiece(ctx context.Context, chat int64, piece string, open *string, opts *tele.SendOptions) (*tele.Message, error) {
	var m *tele.Message
	opts.ParseMode = tele.ModeHTML
	html := renderHTML(piece, open)
	err := t.call(ctx, func() (err error) {
		m, err = t.bot.Send(tele.ChatID(chat), html, opts)
		return err
	})
	if isParseRefusal(err) {
		t.log.Debug("HTML refused; sending plain text", "err", t.scrub(err))
		opts.ParseMode = tele.ModeDefault
		err = t.call(ctx, func() (err error) {
			m, err = t.bot.Send(tele.ChatID(chat), piece, opts)
			return err
		})
	}
	return m, err
}

// editPiece replaces a message's text with one rendered piece, with the
// same plain-text fallback. "Not modified" counts as success.
func (t *Telegram) editPiece(ctx context.Context, chat int64, id int, piece string, open *string, markup *tele.ReplyMarkup) error {
	msg := &tele.Message{ID: id, Chat: &tele.Chat{ID: chat}}
	opts := &tele.SendOptions{ParseMode: tele.ModeHTML, ReplyMarkup: markup}
	html := renderHTML(piece, open)
	err := t.call(ctx, func() error {
		_, err := t.bot.Edit(msg, html, opts)
		return err
	})
	if isParseRefusal(err) {
		opts.ParseMode = tele.ModeDefault
		err = t.call(ctx, func() error {
			_, err := t.bot.Edit(msg, piece, opts)
			return err
		})
	}
	if isNotModified(err) || errors.Is(err, tele.ErrTrueResult) {
		return nil
	}
	return err
}

// sendFile uploads one file, as a photo when its bytes are an image
// Telegram shows inline and it fits the photo cap, else as a document. A
// transient failure is retried once, with the upload rebuilt from the
// bytes: a consumed reader would upload nothing.
//
// A caption, if any, is rendered as HTML; if Telegram refuses the markup
// the upload is made again with the caption's plain source and no parse
// mode, so neither the file nor its caption is lost to a renderer mistake.
func (t *Telegram) sendFile(ctx context.Context, chat int64, thread, replyTo int, f bus.Attachment, caption string) error {
	n := int64(len(f.Data))
	if n > t.limits.File {
		note := fmt.Sprintf("[file not sent: %s is %s, over the %s limit]", f.Name, size(n), size(t.limits.File))
		if caption != "" {
			note = caption + "\n\n" + note
		}
		_, err := t.sendText(ctx, chat, thread, replyTo, note, nil)
		return errors.Join(errorf("telegram: %s is %s, over the %s attachment limit", f.Name, size(n), size(t.limits.File)), err)
	}
	head := f.Data[:min(len(f.Data), 512)]
	ct := http.DetectContentType(head)
	asPhoto := n <= t.limits.Photo && (ct == "image/png" || ct == "image/jpeg" || ct == "image/gif" || ct == "image/webp")
	name := f.Name
	if name == "" {
		name = "file"
	}
	opts := &tele.SendOptions{ThreadID: thread, AllowWithoutReply: true}
	if replyTo != 0 {
		opts.ReplyTo = &tele.Message{ID: replyTo}
	}
	text := caption
	if caption != "" {
		opts.ParseMode = tele.ModeHTML
		text = renderHTML(caption, nil)
	}
	build := func() tele.Sendable {
		if asPhoto {
			return &tele.Photo{File: tele.FromReader(bytes.NewReader(f.Data)), Caption: text}
		}
		return &tele.Document{File: tele.FromReader(bytes.NewReader(f.Data)), FileName: name, Caption: text}
	}
	err := t.upload(ctx, chat, name, opts, build)
	if caption != "" && isParseRefusal(err) {
		t.log.Debug("caption HTML refused; sending it as plain text", "file", name)
		opts.ParseMode, text = tele.ModeDefault, caption
		err = t.upload(ctx, chat, name, opts, build)
	}
	return err
}

// upload sends what build returns, retrying a transient failure once with
// a freshly built payload: a consumed reader would upload nothing.
func (t *Telegram) upload(ctx context.Context, chat int64, name string, opts *tele.SendOptions, build func() tele.Sendable) error {
	if err := t.pace(ctx, chat); err != nil {
		return errorf("telegram: send %s: %w", name, err)
	}
	var err error
	for attempt := 0; attempt < 2; attempt++ {
		err = t.call(ctx, func() error { return t.sendMedia(chat, build(), opts) })
		if err == nil || !transient(err) || ctx.Err() != nil {
			break
		}
		t.log.Debug("upload failed; retrying once", "file", name, "err", t.scrub(err))
	}
	if err != nil {
		return errorf("telegram: send %s: %s", name, t.scrub(err))
	}
	return nil
}

// sendMedia sends one upload. telebot dereferences the media object it
// expects in the answer, so a server that answers with something else
// would panic the caller; that is turned into an error here.
func (t *Telegram) sendMedia(chat int64, what tele.Sendable, opts *tele.SendOptions) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errorf("the Bot API answered an upload with an unexpected message: %v", r)
		}
	}()
	_, err = t.bot.Send(tele.ChatID(chat), what, opts)
	return err
}

// sendVoice sends the spoken rendition of a reply as a voice note. The
// path must name a file in the media spool; nothing else is opened.
func (t *Telegram) sendVoice(ctx context.Context, chat int64, thread, replyTo int, path string) error {
	if t.opts.SpoolDir == "" {
		return errors.New("telegram: a voice reply needs the media spool, and none is configured")
	}
	resolved, err := channels.ResolveSpoolID(t.opts.SpoolDir, filepath.Base(path))
	if err != nil || filepath.Clean(path) != resolved {
		return errorf("telegram: voice reply %q is not a file of the media spool", path)
	}
	data, err := os.ReadFile(resolved)
	if err != nil {
		return errorf("telegram: voice reply: %w", err)
	}
	if int64(len(data)) > t.limits.File {
		return errorf("telegram: voice reply is %s, over the %s limit", size(int64(len(data))), size(t.limits.File))
	}
	opts := &tele.SendOptions{ThreadID: thread, AllowWithoutReply: true}
	if replyTo != 0 {
		opts.ReplyTo = &tele.Message{ID: replyTo}
	}
	return t.upload(ctx, chat, "voice reply", opts, func() tele.Sendable {
		return &tele.Voice{File: tele.FromReader(bytes.NewReader(data))}
	})
}

// transient reports a failure worth retrying: no answer from the Bot API
// (a network error) or a server-side error.
func transient(err error) bool {
	c := errorCode(err)
	return c == 0 || c >= 500
}
