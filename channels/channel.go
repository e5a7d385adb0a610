package channels

import (
	"context"

	"github.com/joshbot/joshbot/bus"
)

// Channel is one chat surface, both directions.
type Channel interface {
	// Name is the adapter's stable identifier, the value of
	// Inbound.Channel ("telegram", "discord", ...).
	Name() string
	// Start owns the platform connection and hands every inbound message to
	// sink until ctx ends, when it returns ctx.Err(). A transient network
	// failure is retried with backoff, never returned, so a flaky platform
	// cannot stop the gateway. The platform is acknowledged only after
	// sink.Deliver returned nil.
	Start(ctx context.Context, sink Sink) error
	// Send posts msg into conversation. It is safe to call while Start runs.
	Send(ctx context.Context, conversation string, msg Outbound) error
}

// Sink receives what an adapter reads from its platform.
type Sink interface {
	// Deliver gates inb (allowlist, addressing) and, when it should run,
	// records it durably. A nil error means the adapter may acknowledge the
	// platform: the message was recorded, was a duplicate, or was dropped on
	// purpose. An error means it was not recorded and must not be
	// acknowledged, so the platform delivers it again.
	Deliver(ctx context.Context, inb Inbound) error
}

// Inbound is a message from a channel, normalized.
type Inbound struct {
	// Channel is the adapter's name.
	Channel string
	// Conversation is the opaque chat or thread id replies route back to.
	Conversation string
	// Principal identifies the sender (an id or @handle) for authorization
	// and audit.
	Principal string
	// Text is the body: the task for the agent.
	Text string
	// MessageID is the platform's stable id of this delivery (Telegram
	// update_id, Discord message id, Slack event ts, GitHub delivery id).
	// The router deduplicates on (Channel, MessageID), so a redelivery
	// after a restart or reconnect never runs twice. Empty means the
	// platform gave none and the message cannot be deduplicated.
	MessageID string
	// Trusted marks a sender the transport already authenticated
	// cryptographically (a signature-verified webhook); the allowlist does
	// not apply to it. Chat messages leave it false.
	Trusted bool
	// Agent names the agent profile to run. Only honoured on Trusted
	// inbounds; chat users choose with /agent instead.
	Agent string
	// IsDirect is true for a one-to-one conversation, which always
	// triggers the agent.
	IsDirect bool
	// Mentioned is true when the bot was addressed in a group: an
	// @mention or a reply to it, detected from the platform's structure,
	// never from a substring of the text.
	Mentioned bool
	// Attachments are media already saved into the spool by the adapter.
	Attachments []Attachment
}

// Outbound is a reply to post into a conversation.
type Outbound struct {
	// Text is the reply, authored as Markdown. It is always present.
	Text string
	// VoicePath optionally points at a spoken rendition of Text in the
	// spool. Adapters that cannot send voice ignore it.
	VoicePath string
	// ReplyTo is the [Inbound.MessageID] of the message this answers.
	// Adapters that can thread a reply to the asking message decode it;
	// empty means no threading.
	ReplyTo string
	// Files leave with the reply, bytes in memory (nothing downstream opens
	// a path). An adapter that cannot send files says so in the text
	// rather than dropping them.
	Files []bus.Attachment
}
