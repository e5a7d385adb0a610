package slack

import (
	"context"
	"net/http"

	"github.com/joshbot/joshbot/channels/internal/angle"
)

// Backoff is the adapter's reconnect ladder.
type Backoff interface {
	Sleep(ctx context.Context) error
	Reset()
}

// SetBackoff replaces the ladder.
func (s *Slack) SetBackoff(f func() Backoff) { s.newBackoff = func() backoff { return f() } }

// Escape exposes the message-text escaper.
func Escape(s string) string { return angle.Escape(s) }

// SetDownloader replaces the client that fetches inbound files, so tests
// can serve them from a fake on the loopback address.
func (s *Slack) SetDownloader(c *http.Client) { s.download = c }
