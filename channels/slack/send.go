package slack

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/joshbot/joshbot/bus"
	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/channels/internal/angle"
)

// pieces splits text with the shared splitter, re-splitting a piece whose
// UTF-16 length (what Slack counts) is over the limit.
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

// Send implements [channels.Channel]. The text goes out with
// chat.postMessage in pieces of at most [MaxMessage] characters, into the
// conversation's thread when it has one. &, < and > are escaped as Slack
// asks, so text a model wrote can never become <!channel> or a <@user>
// ping, and names are not linked (link_names off).
// Files follow with Slack's external upload flow, shared into the same
// thread; a file over [MaxFileBytes] is named in the text instead. The
// voice rendition is not sent: Text is its fallback.
func (s *Slack) Send(ctx context.Context, conversation string, msg channels.Outbound) error {
	channel, thread, err := splitConversation(conversation)
	if err != nil {
		return err
	}
	msg = s.fitReply(conversation, msg)
	text := msg.Text
	var errs []error
	defer func() {
		if thread != "" {
			s.answered(conversation)
		}
	}()
	var notes []string
	var files []bus.Attachment
	for _, f := range msg.Files {
		if len(f.Data) > MaxFileBytes {
			notes = append(notes, fmt.Sprintf("[file not sent: %s is %d MiB, over the %d MiB limit]", f.Name, len(f.Data)>>20, MaxFileBytes>>20))
			errs = append(errs, errorf("slack: %s is over the %d MiB upload limit", f.Name, MaxFileBytes>>20))
			continue
		}
		files = append(files, f)
	}
	if len(notes) > 0 {
		text = strings.TrimRight(text, "\n") + "\n\n" + strings.Join(notes, "\n")
	}
	if strings.TrimSpace(text) != "" {
		if err := s.postText(ctx, channel, thread, text); err != nil {
			errs = append(errs, err)
		}
	}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			s.log.Warn("reply cut off by shutdown: a file was not shared", "conversation", channel, "file", f.Name)
			errs = append(errs, errorf("slack: %s not shared: %w", f.Name, err))
			continue
		}
		if err := s.upload(ctx, channel, thread, f); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// fitReply turns a reply longer than Options.MaxChunks posts into a head
// and a reply.md file.
func (s *Slack) fitReply(conversation string, msg channels.Outbound) channels.Outbound {
	n := channels.PieceCount(msg.Text, s.opts.MaxChunks, MaxMessage, pieces)
	out, cut, long := channels.LongReply(msg, n, s.opts.MaxChunks, MaxFileBytes)
	if cut > 0 {
		s.log.Warn("reply larger than a Slack file: only its beginning was attached; the whole answer is in the session",
			"conversation", conversation, "bytes", len(msg.Text), "bytes_cut", cut)
	}
	if long {
		return out
	}
	return msg
}

// postText posts text in pieces at the channel's pace, stopping at the
// first failure or when ctx ends (the unsent pieces are logged).
func (s *Slack) postText(ctx context.Context, channel, thread, text string) error {
	ps := pieces(text)
	for i, p := range ps {
		if err := s.pace.Wait(ctx, channel); err != nil {
			s.log.Warn("reply cut off by shutdown; the whole answer is in the session", "conversation", channel, "pieces_unsent", len(ps)-i)
			return errorf("slack: reply cut off with %d pieces unsent: %w", len(ps)-i, err)
		}
		params := map[string]any{"channel": channel, "text": angle.Escape(p), "link_names": false, "unfurl_links": false}
		if thread != "" {
			params["thread_ts"] = thread
		}
		if err := s.call(ctx, s.opts.BotToken, "chat.postMessage", params, nil); err != nil {
			return errorf("slack: post piece %d: %w", i+1, err)
		}
	}
	return nil
}

// MaxFileBytes is the largest file the adapter uploads; the payload is
// held in memory for the upload. A bigger file is named in the text.
const MaxFileBytes = 50 << 20

// upload sends one file with Slack's external upload flow: ask for an
// upload URL, post the bytes there (no token goes with them, and only to a
// Slack host), then share the file into the conversation.
func (s *Slack) upload(ctx context.Context, channel, thread string, f bus.Attachment) error {
	name := f.Name
	if name == "" {
		name = "file"
	}
	var slot struct {
		UploadURL string `json:"upload_url"`
		FileID    string `json:"file_id"`
	}
	form := url.Values{"filename": {name}, "length": {strconv.Itoa(len(f.Data))}}
	if err := s.callForm(ctx, s.opts.BotToken, "files.getUploadURLExternal", form, &slot); err != nil {
		return errorf("slack: upload %s: %w", name, err)
	}
	u, err := url.Parse(slot.UploadURL)
	if err != nil || u.Scheme != "https" && u.Scheme != "http" || !s.uploadHostOK(u.Hostname()) {
		return errorf("slack: upload %s: Slack answered an upload URL off its own hosts: %q", name, slot.UploadURL)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(f.Data))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/octet-stream")
	resp, err := s.http.Do(req)
	if err != nil {
		return errorf("slack: upload %s: %w", name, err)
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return errorf("slack: upload %s: %s", name, resp.Status)
	}
	list, _ := json.Marshal([]map[string]string{{"id": slot.FileID, "title": name}})
	done := url.Values{"files": {string(list)}, "channel_id": {channel}}
	if thread != "" {
		done.Set("thread_ts", thread)
	}
	if err := s.callForm(ctx, s.opts.BotToken, "files.completeUploadExternal", done, nil); err != nil {
		return errorf("slack: share %s: %w", name, err)
	}
	return nil
}

// uploadHostOK keeps uploads on Slack's hosts, or on the configured API
// host (a fake in tests, a proxy in front of Slack).
func (s *Slack) uploadHostOK(host string) bool {
	api, err := url.Parse(s.api)
	return channels.HostAllowed(host, "slack.com") || err == nil && strings.EqualFold(host, api.Hostname())
}
