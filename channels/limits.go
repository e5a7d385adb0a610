package channels

// AttachmentLimits bounds what an adapter uploads in one file. The payload
// is held in memory for the length of the upload, so the caps are memory
// bounds as much as protocol ones.
type AttachmentLimits struct {
	// Photo is the largest image sent as a photo; a bigger one goes as a
	// document.
	Photo int64
	// File is the largest file sent at all.
	File int64
}

// TelegramAttachmentLimitsFor returns the outbound caps for a Telegram bot
// talking to apiURL: 10 MiB against the public Bot API (an empty apiURL),
// 50 MiB for documents through a self-hosted server. It is the one rule
// both the producer of a file (send_file) and the Telegram transport read,
// so the producer cannot refuse what the transport would accept or the
// other way round.
func TelegramAttachmentLimitsFor(apiURL string) AttachmentLimits {
	if apiURL == "" {
		return AttachmentLimits{Photo: 10 << 20, File: 10 << 20}
	}
	return AttachmentLimits{Photo: 10 << 20, File: 50 << 20}
}
