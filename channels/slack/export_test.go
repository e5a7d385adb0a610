package slack

import "context"

// Backoff is the adapter's reconnect ladder.
type Backoff interface {
	Sleep(ctx context.Context) error
	Reset()
}

// SetBackoff replaces the ladder.
func (s *Slack) SetBackoff(f func() Backoff) { s.newBackoff = func() backoff { return f() } }

// Escape exposes the message-text escaper.
func Escape(s string) string { return escape(s) }
