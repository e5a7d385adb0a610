package bus

import "time"

// Inbound is a message that arrived from a channel and awaits the agent.
//
// Deprecated: it travels only through the deprecated [Bus.PublishInbound]
// and [Bus.Inbound]; the gateway's inbound message is channels.Inbound,
// held in the channels module's durable inbox.
type Inbound struct {
	// Channel names the adapter it came from ("telegram", "discord", "cli").
	Channel string
	// ChatID is the conversation the reply routes back to.
	ChatID string
	// SenderID identifies who sent it; together with Channel it selects the
	// session.
	SenderID string
	// MessageID is the platform's id for the message; empty if none.
	MessageID string
	// Text is the message body.
	Text string
	// Time is when the channel received it; zero means unknown.
	Time time.Time
}

// SessionKey returns the "channel:sender" key that selects the conversation's
// session.
func (m Inbound) SessionKey() string { return m.Channel + ":" + m.SenderID }

// Outbound is a reply on its way to a channel.
type Outbound struct {
	// Channel names the adapter that must deliver it; other consumers ignore
	// it.
	Channel string
	// ChatID is the conversation to post into.
	ChatID string
	// ReplyTo is the platform id of the message being answered; empty means
	// no threading.
	ReplyTo string
	// Text is the reply body, authored as Markdown.
	Text string
	// Attachments are files that leave with the reply. A typed slice rather
	// than a metadata key, so a typo cannot send nothing and report success.
	Attachments []Attachment
}

// Attachment is a file carried on an outbound message. The bytes travel with
// the message; nothing downstream re-opens a path.
type Attachment struct {
	// Name is the file name shown to the recipient.
	Name string
	// MIME is the content type decided from the bytes.
	MIME string
	// Data is the whole file.
	Data []byte
	// SourcePath is a human-readable label of where the file came from. It
	// is never opened.
	SourcePath string
}
