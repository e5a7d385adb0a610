package telegram

import (
	"context"
	"time"

	"github.com/joshbot/joshbot/channels"
)

// SetClock replaces the adapter's time source.
func (t *Telegram) SetClock(now func() time.Time, after func(time.Duration) <-chan time.Time) {
	t.clock = clock{now: now, after: after}
}

// Backoff is the poller's reconnect ladder.
type Backoff interface {
	Sleep(ctx context.Context) error
	Reset()
}

// SetBackoff replaces the poller's reconnect ladder.
func (t *Telegram) SetBackoff(f func() Backoff) {
	t.newBackoff = func() backoff { return f() }
}

// RenderHTML exposes the Markdown renderer.
func RenderHTML(md string, openFence *string) string { return renderHTML(md, openFence) }

// GetUpdatesBody exposes the hand-built long-poll body.
func GetUpdatesBody(offset, timeout int) []byte {
	return newLongPoll("", "", timeout).body(offset)
}

// EmptyResult exposes the quiet-poll recogniser.
func EmptyResult(data []byte) bool { return emptyResult(data) }

// ValidCommand exposes the command name check.
func ValidCommand(name string) bool { return validCommand(name) }

// SetMyCommandsBody exposes the hand-built setMyCommands request.
func SetMyCommandsBody(menu []channels.Command) []byte { return setMyCommandsBody(menu) }
