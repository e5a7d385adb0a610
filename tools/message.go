package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/joshbot/joshbot/bus"
)

// Outbox delivers messages to channels; *bus.Bus implements it.
type Outbox interface {
	PublishOutbound(ctx context.Context, m bus.Outbound) error
}

// DefaultMaxSendFileBytes caps one file sent with send_file. The bytes are
// held in memory while they travel, so the cap is a memory bound; it is
// also under every supported channel's own upload limit.
const DefaultMaxSendFileBytes = 10 << 20

// sniffLen is how much of a file decides its content type.
const sniffLen = 512

// MessagingOptions configures [RegisterMessaging]. Nil means defaults.
type MessagingOptions struct {
	// MaxFileBytes caps send_file; zero means DefaultMaxSendFileBytes.
	MaxFileBytes int64
	// MaxFileBytesFor, if set, gives the cap for a file to the named
	// channel (the turn's recipient), so send_file refuses exactly what
	// that channel's transport would; zero or less falls back to
	// MaxFileBytes.
	MaxFileBytesFor func(channel string) int64
}

// ErrNoRecipient is returned by message and send_file when the turn has no
// conversation to deliver to.
var ErrNoRecipient = errors.New("this turn has no conversation to deliver to")

// RegisterMessaging registers message and send_file on reg. Both deliver
// to the turn's own conversation, read from the context ([WithRecipient]),
// never from an argument, so the model cannot address anyone else.
// send_file is confined to workspace like the filesystem tools.
func RegisterMessaging(reg *Registry, out Outbox, workspace string, opts *MessagingOptions) error {
	if reg == nil || out == nil {
		return errors.New("tools: register messaging: nil registry or outbox")
	}
	c, err := newContained(workspace)
	if err != nil {
		return errorf("tools: register messaging: %w", err)
	}
	limit := int64(DefaultMaxSendFileBytes)
	var limitFor func(string) int64
	if opts != nil && opts.MaxFileBytes > 0 {
		limit = opts.MaxFileBytes
	}
	if opts != nil {
		limitFor = opts.MaxFileBytesFor
	}
	for _, t := range []Tool{&messageTool{out: out}, &sendFileTool{out: out, c: c, limit: limit, limitFor: limitFor}} {
		if err := reg.Register(t); err != nil {
			return errorf("tools: register messaging: %w", err)
		}
	}
	return nil
}

type messageTool struct{ out Outbox }

func (*messageTool) Name() string { return "message" }
func (*messageTool) Description() string {
	return "Send a message to the user in this conversation right away, before your final answer (for progress or a heads-up). " +
		"It always goes to the current conversation."
}
func (*messageTool) Parameters() json.RawMessage {
	return messageSchema.get()
}

type messageArgs struct {
	Text string `json:"text" jsonschema:"the message, Markdown"`
}

var messageSchema = lazySchema{of: (*messageArgs)(nil)}

func (t *messageTool) Execute(ctx context.Context, raw json.RawMessage) (string, error) {
	var a messageArgs
	if err := decodeArgs("message", raw, &a); err != nil {
		return "", err
	}
	if strings.TrimSpace(a.Text) == "" {
		return "", missing("message", "text")
	}
	r, ok := RecipientFromContext(ctx)
	if !ok {
		return "", errorf("message: %w", ErrNoRecipient)
	}
	if err := t.out.PublishOutbound(ctx, bus.Outbound{Channel: r.Channel, ChatID: r.ChatID, Text: a.Text}); err != nil {
		return "", errorf("message: not delivered: %w", err)
	}
	return fmt.Sprintf("Message delivered to this %s conversation.", r.Channel), nil
}

type sendFileTool struct {
	out      Outbox
	c        *contained
	limit    int64
	limitFor func(channel string) int64
}

// capFor returns the size cap for a file to channel.
func (t *sendFileTool) capFor(channel string) int64 {
	if t.limitFor != nil {
		if n := t.limitFor(channel); n > 0 {
			return n
		}
	}
	return t.limit
}

func (*sendFileTool) Name() string { return "send_file" }
func (t *sendFileTool) Description() string {
	return fmt.Sprintf("Send a workspace file to the user in this conversation as an attachment (at most %d MiB on most channels). "+
		"Images are shown as pictures; anything else as a document.", t.limit>>20)
}
func (*sendFileTool) Parameters() json.RawMessage {
	return sendFileSchema.get()
}

type sendFileArgs struct {
	Path    string `json:"path" jsonschema:"workspace-relative path of the file"`
	Caption string `json:"caption,omitempty" jsonschema:"optional text sent with the file"`
}

var sendFileSchema = lazySchema{of: (*sendFileArgs)(nil)}

func (t *sendFileTool) Execute(ctx context.Context, raw json.RawMessage) (string, error) {
	var a sendFileArgs
	if err := decodeArgs("send_file", raw, &a); err != nil {
		return "", err
	}
	if a.Path == "" {
		return "", missing("send_file", "path")
	}
	r, ok := RecipientFromContext(ctx)
	if !ok {
		return "", errorf("send_file: %w", ErrNoRecipient)
	}
	att, err := t.read(a.Path, t.capFor(r.Channel))
	if err != nil {
		return "", errorf("send_file: %w", err)
	}
	msg := bus.Outbound{Channel: r.Channel, ChatID: r.ChatID, Text: a.Caption, Attachments: []bus.Attachment{att}}
	if err := t.out.PublishOutbound(ctx, msg); err != nil {
		return "", errorf("send_file: not delivered: %w", err)
	}
	return fmt.Sprintf("Sent %s (%s, %d bytes) to this %s conversation.", att.SourcePath, att.MIME, len(att.Data), r.Channel), nil
}

// read opens p inside the workspace and reads it through that one handle:
// the bytes that leave are the bytes of the file that passed the check,
// and nothing later re-opens the path.
func (t *sendFileTool) read(p string, limit int64) (bus.Attachment, error) {
	f, real, err := t.c.open(p)
	if err != nil {
		return bus.Attachment{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return bus.Attachment{}, errorf("path %q: %w", p, err)
	}
	if !fi.Mode().IsRegular() {
		return bus.Attachment{}, errorf("path %q is not a regular file", p)
	}
	// A link swapped in between the check and the open would make the
	// handle name a different file than the resolved path.
	if cur, err := os.Stat(real); err != nil || !os.SameFile(fi, cur) {
		return bus.Attachment{}, errorf("path %q changed while it was opened; try again", p)
	}
	if fi.Size() > limit {
		return bus.Attachment{}, errorf("%q is %d bytes, over the %d MiB send limit", p, fi.Size(), limit>>20)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return bus.Attachment{}, errorf("read %q: %w", p, err)
	}
	if int64(len(data)) > limit {
		return bus.Attachment{}, errorf("%q grew past the %d MiB send limit while it was read", p, limit>>20)
	}
	head := data
	if len(head) > sniffLen {
		head = head[:sniffLen]
	}
	rel := t.c.rel(real)
	return bus.Attachment{
		Name:       path.Base(filepath.ToSlash(rel)),
		MIME:       http.DetectContentType(head),
		Data:       data,
		SourcePath: rel,
	}, nil
}
