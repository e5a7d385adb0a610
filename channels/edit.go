package channels

import "context"

// Editor is the ability to change the text of a message the bot posted
// earlier, including one posted before the process restarted. The gateway
// uses it to mark a reply it was streaming when it died as cut off, so the
// chat does not keep a half-written answer that looks whole.
type Editor interface {
	// EditMessage replaces the text of the bot's message id in
	// conversation with text, removing any buttons it had. id is one a
	// [ShownStream] reported.
	EditMessage(ctx context.Context, conversation, id, text string) error
}

// ShownStream is the ability of a [Stream] to say what its live message
// shows, so a caller can record it durably and, after a crash, finish the
// message with [Editor].
type ShownStream interface {
	// OnShown sets fn, called each time the live message is posted or
	// edited with the message's id and the whole text it now shows. fn
	// runs on the adapter's goroutine, never after Finish has returned,
	// and should not block long. A stream shown another way (a draft) may
	// never call it.
	OnShown(fn func(id, text string))
}
