package slack

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf16"

	"github.com/joshbot/joshbot/channels"
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
// The adapter does not upload files or voice: they are named in a note
// instead, and Send reports them as not sent.
func (s *Slack) Send(ctx context.Context, conversation string, msg channels.Outbound) error {
	channel, thread, err := splitConversation(conversation)
	if err != nil {
		return err
	}
	text := msg.Text
	var errs []error
	var notes []string
	for _, f := range msg.Files {
		notes = append(notes, fmt.Sprintf("[file not sent: %s — this Slack adapter does not upload files]", f.Name))
		errs = append(errs, fmt.Errorf("slack: %s not sent: file uploads are not supported", f.Name))
	}
	if len(notes) > 0 {
		text = strings.TrimRight(text, "\n") + "\n\n" + strings.Join(notes, "\n")
	}
	if strings.TrimSpace(text) == "" {
		return errors.Join(errs...)
	}
	for i, p := range pieces(text) {
		params := map[string]any{"channel": channel, "text": escape(p), "link_names": false, "unfurl_links": false}
		if thread != "" {
			params["thread_ts"] = thread
		}
		if err := s.call(ctx, s.opts.BotToken, "chat.postMessage", params, nil); err != nil {
			errs = append(errs, fmt.Errorf("slack: post piece %d: %w", i+1, err))
			break
		}
	}
	if thread != "" {
		s.answered(conversation)
	}
	return errors.Join(errs...)
}

// escaper applies Slack's three escapes for message text.
var escaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

func escape(s string) string { return escaper.Replace(s) }
