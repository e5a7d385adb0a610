package telegram

import (
	"context"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"time"
)

// PublicAPIURL is the Bot API the adapter talks to when Options.APIURL is
// empty.
const PublicAPIURL = "https://api.telegram.org"

// Options configures a [Telegram] adapter. Token is required; every other
// zero value means the default given on the field.
type Options struct {
	// Token is the bot token from @BotFather (channels.telegram.token).
	Token string
	// APIURL points the adapter at a self-hosted telegram-bot-api server
	// (channels.telegram.api_url). Empty means the public Bot API. Only
	// http and https URLs are accepted; anything else is a fatal
	// configuration error from [New]. A non-empty value also raises the
	// outbound document cap (see channels.TelegramAttachmentLimitsFor).
	APIURL string
	// SpoolDir is the media spool inbound photos and PDFs are saved into.
	// Empty means media that would need the spool is refused with a reply
	// saying so, rather than downloaded somewhere unplanned.
	SpoolDir string
	// StreamDrafts streams replies in private chats through
	// sendMessageDraft instead of editing a message
	// (channels.telegram.stream_drafts). Off by default.
	StreamDrafts bool
	// Reactions acknowledges a message with 👀 when it is accepted and 👍
	// when the reply is on its way (channels.telegram.reactions). Off by
	// default; failures are logged at debug and never affect the turn.
	Reactions bool
	// HTTPTimeout bounds one Bot API request other than the long poll;
	// zero means 60s.
	HTTPTimeout time.Duration
	// PollTimeout is how long one getUpdates call waits for an update;
	// zero means 30s.
	PollTimeout time.Duration
	// MaxChunks caps how many messages one reply takes
	// (channels.telegram.max_chunks); a longer reply is sent as a short
	// head message with the whole text attached as reply.md (see
	// channels.LongReply). Zero means channels.DefaultMaxChunks.
	MaxChunks int
	// Transcriber, when set, turns voice notes and audio into text
	// (stt.provider). Nil means they get an honest reply instead and no
	// model turn is spent.
	Transcriber Transcriber
	// Logger receives the adapter's logs; nil means slog.Default().
	Logger *slog.Logger
}

// Transcriber turns recorded speech into text. The adapter passes the
// bytes it downloaded (never more than the declared size allowed) and the
// platform's file name and MIME type as hints.
type Transcriber interface {
	Transcribe(ctx context.Context, audio io.Reader, name, mimeType string) (string, error)
}

// ValidateAPIURL checks an [Options] APIURL value: empty (the public Bot
// API) or an absolute http or https URL with a host. The error names the
// field; a program that reads the URL from its configuration wraps it with
// its own key.
func ValidateAPIURL(raw string) error {
	if raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return errorf("telegram: Options.APIURL %q is not a URL: %v", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return errorf("telegram: Options.APIURL %q must start with http:// or https://", raw)
	}
	if u.Host == "" {
		return errorf("telegram: Options.APIURL %q has no host", raw)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return errorf("telegram: Options.APIURL %q must be a plain base URL (no credentials, query or fragment)", raw)
	}
	return nil
}

// baseURL returns the API root without a trailing slash.
func baseURL(apiURL string) string {
	if apiURL == "" {
		return PublicAPIURL
	}
	return strings.TrimRight(apiURL, "/")
}
