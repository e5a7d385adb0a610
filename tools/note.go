package tools

import "context"

type noteKey struct{}

// WithNotes returns ctx with report as the receiver of the progress notes a
// tool running under it sends with [Note]. The agent installs one per tool
// call, so a note reaches the person's screen between the call's start and
// done lines. report may be called from any goroutine the tool runs; it
// must not block for long.
func WithNotes(ctx context.Context, report func(text string)) context.Context {
	return context.WithValue(ctx, noteKey{}, report)
}

// Note reports a short line about a call still running ("falling back to
// Exa MCP", "downloading 3 of 7") to the receiver [WithNotes] put on ctx.
// It does nothing when there is none or text is empty, so a tool may call
// it unconditionally.
func Note(ctx context.Context, text string) {
	if text == "" {
		return
	}
	if report, ok := ctx.Value(noteKey{}).(func(string)); ok && report != nil {
		report(text)
	}
}
