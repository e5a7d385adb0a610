package slack

import (
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/joshbot/joshbot/channels"
)

// Allower is the optional ability of a [channels.Sink] to say whether a
// sender is on its allowlist. The adapter asks before downloading a
// sender's files; a sink without it gets no downloads, so the default is
// closed.
type Allower interface {
	Allowed(channel, principal string) bool
}

// file is the part of a Slack file object the adapter reads.
type file struct {
	Name     string `json:"name"`
	Mimetype string `json:"mimetype"`
	Size     int64  `json:"size"`
	// URL is url_private_download, fetched with the bot token; Slack
	// leaves it out for external, hidden and deleted files.
	URL string `json:"url_private_download"`
}

// attach downloads the files of an allowed sender's message into the
// spool and adds them to inb. Files it will not take are explained in
// one reply in the conversation, sent only once every file is settled, so
// a retried envelope does not repeat it. An error is a transient failure:
// the envelope stays unacknowledged and Slack sends it again.
func (s *Slack) attach(ctx context.Context, sink channels.Sink, inb *channels.Inbound, files []file) error {
	if a, ok := sink.(Allower); !ok || !a.Allowed(Name, inb.Principal) {
		return nil // the sink drops the message; nothing is fetched for it
	}
	var notes []string
	for _, f := range files {
		att, note, err := s.fetch(ctx, f)
		if err != nil {
			return err
		}
		if note != "" {
			notes = append(notes, note)
			continue
		}
		inb.Attachments = append(inb.Attachments, att)
	}
	if len(notes) > 0 && (inb.IsDirect || inb.Mentioned) {
		if err := s.Send(ctx, inb.Conversation, channels.Outbound{Text: strings.Join(notes, "\n")}); err != nil {
			s.log.Warn("reply about refused files not sent", "err", err)
		}
	}
	return nil
}

// fetch saves one file into the spool. note, when set, says why it was
// refused (to tell the user); err is a transient failure.
func (s *Slack) fetch(ctx context.Context, f file) (channels.Attachment, string, error) {
	name := f.Name
	if name == "" {
		name = "the file"
	}
	if s.opts.SpoolDir == "" {
		return channels.Attachment{}, fmt.Sprintf("I can't take files here (%s): this gateway has no media spool configured.", name), nil
	}
	if f.Size > channels.MaxAttachmentBytes {
		return channels.Attachment{}, fmt.Sprintf("%s is %d MiB; I can take files up to %d MiB.", name, f.Size>>20, channels.MaxAttachmentBytes>>20), nil
	}
	if f.URL == "" {
		return channels.Attachment{}, fmt.Sprintf("%s was not fetched: Slack offers no download for it (an external, hidden or deleted file).", name), nil
	}
	u, err := url.Parse(f.URL)
	// The bot token goes with the request, so only to Slack's hosts.
	if err != nil || u.Scheme != "https" && u.Scheme != "http" || !s.uploadHostOK(u.Hostname()) {
		return channels.Attachment{}, fmt.Sprintf("%s was not fetched: its address is not on Slack's hosts.", name), nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return channels.Attachment{}, "", err
	}
	req.Header.Set("Authorization", "Bearer "+s.opts.BotToken)
	resp, err := s.download.Do(req)
	if err != nil {
		return channels.Attachment{}, "", errorf("slack: download %s: %w", name, err)
	}
	defer resp.Body.Close()
	// Without the files:read scope Slack answers a file URL with its
	// sign-in page, status 200.
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); resp.StatusCode == http.StatusOK && mt == "text/html" && !strings.Contains(f.Mimetype, "html") {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		s.log.Warn("Slack answered a file download with a web page: the bot token needs the files:read scope", "file", name)
		return channels.Attachment{}, fmt.Sprintf("%s could not be fetched: this bot is not allowed to read files (its token needs the files:read scope).", name), nil
	}
	att, note, err := channels.SpoolResponse(s.opts.SpoolDir, resp, f.Mimetype, f.Name, name)
	if err != nil {
		return channels.Attachment{}, "", errorf("slack: %w", err)
	}
	return att, note, nil
}
