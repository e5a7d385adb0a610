package discord

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

	"github.com/bwmarrin/discordgo"

	"github.com/joshbot/joshbot/bus"
	"github.com/joshbot/joshbot/channels"
)

// MaxMessage is Discord's limit on one message's content.
const MaxMessage = 2000

// MaxFileBytes is the largest file the adapter uploads: Discord's limit
// for a bot in a server without boosts. A bigger file is named in the text
// instead of being dropped silently.
const MaxFileBytes = 10 << 20

// maxFilesPerMessage is Discord's limit on attachments per message.
const maxFilesPerMessage = 10

// pieces splits text with the shared splitter. Chunk counts runes; a piece
// Discord would count longer (astral characters as two UTF-16 units) is
// split again.
func pieces(text string) []string {
	var out []string
	for _, p := range channels.Chunk(text, MaxMessage) {
		if len(utf16.Encode([]rune(p))) > MaxMessage {
			out = append(out, channels.Chunk(p, MaxMessage/2)...)
			continue
		}
		out = append(out, p)
	}
	return out
}

// noMentions keeps a reply from pinging anyone: text written by a model
// must not reach @everyone.
var noMentions = &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}}

// Send implements [channels.Channel]. The text is split at 2,000
// characters, the first piece threaded to msg.ReplyTo (a missing message
// is not an error); the voice rendition (msg.VoicePath, a spool file) and
// the files follow as attachments, ten per message. A file over
// [MaxFileBytes] is named in a note instead. A reply of more than
// Options.MaxChunks pieces goes as a short head with the whole text
// attached as reply.md ([channels.LongReply]).
//
// Messages keep to Discord's pace per channel (five, then one a second).
// When ctx ends nothing more is sent: the error wraps ctx's, and the log
// says how many messages were cut off.
func (d *Discord) Send(ctx context.Context, conversation string, msg channels.Outbound) error {
	if conversation == "" {
		return errors.New("discord: empty conversation id")
	}
	msg = d.fitReply(conversation, msg)
	ref := reference(conversation, msg.ReplyTo)
	var errs []error
	unsent := 0
	send := func(m *discordgo.MessageSend) {
		if unsent > 0 || d.pace.Wait(ctx, conversation) != nil {
			unsent++
			return
		}
		m.AllowedMentions = noMentions
		if ref != nil {
			m.Reference = ref
			ref = nil
		}
		if _, err := d.s.ChannelMessageSendComplex(conversation, m, discordgo.WithContext(ctx)); err != nil {
			if ctx.Err() != nil {
				unsent++
				return
			}
			errs = append(errs, errorf("discord: send to %s: %s", conversation, d.scrub(err)))
		}
	}
	if strings.TrimSpace(msg.Text) != "" {
		for _, p := range pieces(msg.Text) {
			send(&discordgo.MessageSend{Content: p})
		}
	}
	files := msg.Files
	if msg.VoicePath != "" {
		f, err := d.voice(msg.VoicePath)
		if err != nil {
			errs = append(errs, err)
		} else {
			files = append([]bus.Attachment{f}, files...)
		}
	}
	var batch []*discordgo.File
	var notes []string
	for _, f := range files {
		if len(f.Data) > MaxFileBytes {
			notes = append(notes, fmt.Sprintf("[file not sent: %s is %d MiB, over Discord's %d MiB limit]", f.Name, len(f.Data)>>20, MaxFileBytes>>20))
			errs = append(errs, errorf("discord: %s is over the %d MiB attachment limit", f.Name, MaxFileBytes>>20))
			continue
		}
		name := f.Name
		if name == "" {
			name = "file"
		}
		ct := f.MIME
		if ct == "" {
			ct = http.DetectContentType(f.Data[:min(len(f.Data), 512)])
		}
		batch = append(batch, &discordgo.File{Name: name, ContentType: ct, Reader: bytes.NewReader(f.Data)})
		if len(batch) == maxFilesPerMessage {
			send(&discordgo.MessageSend{Files: batch})
			batch = nil
		}
	}
	if len(batch) > 0 || len(notes) > 0 {
		send(&discordgo.MessageSend{Files: batch, Content: strings.Join(notes, "\n")})
	}
	if unsent > 0 {
		d.log.Warn("reply cut off by shutdown; the whole answer is in the session", "conversation", conversation, "messages_unsent", unsent)
		errs = append(errs, errorf("discord: reply cut off with %d messages unsent: %w", unsent, ctx.Err()))
	}
	return errors.Join(errs...)
}

// fitReply turns a reply longer than Options.MaxChunks messages into a
// head and a reply.md file.
func (d *Discord) fitReply(conversation string, msg channels.Outbound) channels.Outbound {
	n := channels.PieceCount(msg.Text, d.opts.MaxChunks, MaxMessage, pieces)
	out, cut, long := channels.LongReply(msg, n, d.opts.MaxChunks, MaxFileBytes)
	if cut > 0 {
		d.log.Warn("reply larger than a Discord file: only its beginning was attached; the whole answer is in the session",
			"conversation", conversation, "bytes", len(msg.Text), "bytes_cut", cut)
	}
	if long {
		return out
	}
	return msg
}

// reference threads a reply to the message id replyTo in conversation,
// tolerating a message that no longer exists (or an interaction id).
func reference(conversation, replyTo string) *discordgo.MessageReference {
	if replyTo == "" {
		return nil
	}
	no := false
	return &discordgo.MessageReference{MessageID: replyTo, ChannelID: conversation, FailIfNotExists: &no}
}

// voice reads a spoken rendition from the spool; nothing outside it is
// opened.
func (d *Discord) voice(path string) (bus.Attachment, error) {
	if d.opts.SpoolDir == "" {
		return bus.Attachment{}, errors.New("discord: a voice reply needs the media spool, and none is configured")
	}
	resolved, err := channels.ResolveSpoolID(d.opts.SpoolDir, filepath.Base(path))
	if err != nil || filepath.Clean(path) != resolved {
		return bus.Attachment{}, errorf("discord: voice reply %q is not a file of the media spool", path)
	}
	data, err := os.ReadFile(resolved)
	if err != nil {
		return bus.Attachment{}, errorf("discord: voice reply: %w", err)
	}
	return bus.Attachment{Name: "voice.ogg", MIME: "audio/ogg", Data: data}, nil
}
