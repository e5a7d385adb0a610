package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/providers"
)

// DefaultCompactionThreshold is the estimated size, in tokens, of a
// session's history above which it is compacted, in the background after
// the reply that takes it over. It leaves room in the 128k-token window
// assumed for models of unknown size.
const DefaultCompactionThreshold = 64_000

// Bounds on what one summarization request sends: the summary is a lossy
// stand-in by design (the archive keeps every word), so a very long span is
// better summarized from trimmed messages than not at all.
const (
	compactMaxMessageChars = 2_000
	compactMaxInputChars   = 240_000
	compactSummaryTokens   = 1_024
)

const compactPrompt = `You condense the earlier part of a conversation between a user and an AI assistant into a summary that will replace it.
Keep what the assistant needs to continue: the user's goals and requests, decisions made, facts learned, names, numbers, file paths, open tasks and unanswered questions.
Leave out small talk and the details of tool output that no longer matter. Write plain prose or short bullet points, in the conversation's language, at most about 400 words.
Reply with the summary only.`

// errNothingToCompact means the session is too short to compact.
var errNothingToCompact = errors.New("nothing to compact yet")

// estimateTokens is a cheap size estimate of msgs: about four bytes per
// token plus a little per message for the wire envelope.
func estimateTokens(msgs []memory.Message) int {
	n := 0
	for i := range msgs {
		m := &msgs[i]
		n += len(m.Content) + 16
		for _, c := range m.ToolCalls {
			n += len(c.Name) + len(c.Arguments) + 16
		}
	}
	return n / 4
}

// compactionDue applies the rules of automatic compaction to sess and
// returns where to cut it (see [memory.CompactionCut]) when it is due.
//
// finished tells how sess is judged. False: its last user message is the
// turn about to be sent, which stays verbatim with the [memory.KeepRecent]
// messages before it. True: sess ends with a finished turn and is judged as
// the next turn will find it, its last KeepRecent messages staying, so that
// the next turn finds nothing left to compact.
func (a *Agent) compactionDue(sess *memory.Session, finished bool) (cut int, due bool) {
	if a.compactionThreshold < 0 {
		return 0, false
	}
	msgs := sess.Messages
	// Many short messages compact too, before the history window would
	// drop the oldest of them from the request unsummarized.
	overCount := len(msgs) > a.historyLimit
	threshold := a.compactAt()
	if !overCount && estimateTokens(msgs) < threshold {
		return 0, false
	}
	if finished {
		// The cut the next turn would make, its message not yet there.
		cut = memory.CompactionCut(append(slices.Clip(msgs), memory.Message{Role: providers.RoleUser}), memory.KeepRecent)
	} else {
		cut = memory.CompactionCut(msgs, memory.KeepRecent)
	}
	if start := compactionStart(msgs); cut <= start {
		return 0, false
	}
	// When nearly all of the size is in the part that must stay (one huge
	// recent message, say), a summary would gain little and cost a model
	// call on every turn; the history window still bounds the request.
	if !overCount && estimateTokens(msgs[:cut]) < threshold/8 {
		a.log.Debug("compaction skipped: too little to summarize", "session", sess.Key)
		return 0, false
	}
	return cut, true
}

// compactAt is the size in tokens above which a session compacts:
// CompactionThreshold, or three quarters of the request budget of the
// model's context window when that is smaller, so a session compacts
// before its requests must leave history out.
func (a *Agent) compactAt() int {
	return min(a.compactionThreshold, a.windowBudget(a.model)*3/4)
}

// maybeCompact compacts sess before the turn's request when it is over the
// threshold. It is the fallback: a session normally compacts after the
// reply that took it over (see [Agent.compactAfterTurn]), so this catches
// a huge new message, a background compaction that failed or was cut
// short, and sessions from before that. A failure is logged and the turn
// goes on: the request is still bounded by the history window, and the
// next turn will try again.
//
// settle waits for any write of the session still in flight; it is called
// before compaction saves the session, so the older write cannot land
// after it.
func (a *Agent) maybeCompact(ctx context.Context, sess *memory.Session, settle func() error) {
	cut, due := a.compactionDue(sess, false)
	if !due {
		return
	}
	_ = settle() // a failed write is reported at the end of the turn
	n, err := a.compact(ctx, sess, cut)
	a.logCompaction(sess.Key, n, err, "the request uses the newest messages")
}

// compactAfterTurn compacts key's session in the background after a
// successful turn, when the saved session is due, so that the next turn
// need not wait for a summary before its request. It takes the session's
// turn lock (a turn still running, or starting meanwhile, is waited for or
// waits), reloads the session and checks it again, since another turn may
// have changed it. The summary request gets the turn timeout.
func (a *Agent) compactAfterTurn(key string) {
	unlock, err := a.sessions.Lock(a.bgCtx, key)
	if err != nil {
		a.log.Info("compaction after the turn skipped", "session", key, "err", err)
		return
	}
	defer unlock()
	sess, err := a.sessions.Load(key)
	if err != nil {
		a.log.Warn("compaction after the turn skipped: the session did not load", "session", key, "err", err)
		return
	}
	cut, due := a.compactionDue(sess, true)
	if !due {
		return
	}
	ctx, cancel := context.WithTimeout(a.bgCtx, a.timeout)
	defer cancel()
	n, err := a.compact(ctx, sess, cut)
	if a.abandoned(err) {
		a.log.Info("compaction abandoned: the process is stopping; the session is unchanged and the next turn compacts it", "session", key)
		return
	}
	a.logCompaction(key, n, err, "the next turn tries again")
}

// logCompaction logs the outcome of an automatic compaction; then tells
// what happens after a failure.
func (a *Agent) logCompaction(key string, n int, err error, then string) {
	switch {
	case errors.Is(err, errNothingToCompact):
	case err != nil:
		a.log.Warn("compaction failed; the session is unchanged and "+then, "session", key, "err", err)
	default:
		a.log.Info("compacted session", "session", key, "archived_messages", n)
	}
}

// compactionStart is 1 when msgs opens with a compaction record, else 0.
func compactionStart(msgs []memory.Message) int {
	if len(msgs) > 0 && msgs[0].Kind == memory.KindCompaction {
		return 1
	}
	return 0
}

// compact summarizes sess.Messages up to cut (see [memory.CompactionCut])
// and stores the summary as its compaction record. It returns how many
// messages were archived. The caller holds the session's turn lock.
func (a *Agent) compact(ctx context.Context, sess *memory.Session, cut int) (int, error) {
	start := compactionStart(sess.Messages)
	if cut <= start {
		return 0, errNothingToCompact
	}
	var b strings.Builder
	if start == 1 {
		b.WriteString("Summary of the conversation before this part:\n")
		b.WriteString(sess.Messages[0].Content)
		b.WriteString("\n\nThe conversation continues:\n")
	}
	span := sess.Messages[start:cut]
	// When the span is too long, keep its end: the newest part matters
	// most to the conversation that continues.
	var lines []string
	total := b.Len()
	// The summarizing request fits the model's window too.
	maxInput := min(compactMaxInputChars, (a.windowBudget(a.model)-compactSummaryTokens)*4-len(compactPrompt)-256)
	for i := len(span) - 1; i >= 0 && total < maxInput; i-- {
		l := transcriptLine(&span[i])
		if total+len(l) > maxInput && len(lines) > 0 {
			break
		}
		lines = append(lines, l)
		total += len(l)
	}
	if len(lines) < len(span) {
		fmt.Fprintf(&b, "[%d earlier messages omitted]\n", len(span)-len(lines))
	}
	for i := len(lines) - 1; i >= 0; i-- {
		b.WriteString(lines[i])
	}
	resp, err := a.provider.Chat(ctx, &providers.Request{
		Model: a.model,
		Messages: []providers.Message{
			{Role: providers.RoleSystem, Content: compactPrompt},
			{Role: providers.RoleUser, Content: b.String()},
		},
		MaxTokens: compactSummaryTokens,
	})
	if err != nil {
		return 0, errorf("summarize with %s: %w", a.providerName, err)
	}
	summary := strings.TrimSpace(resp.Message.Content)
	if summary == "" {
		return 0, errorf("summarize with %s: the model returned an empty summary", a.providerName)
	}
	if err := a.sessions.Compact(sess, cut, summary, a.now()); err != nil {
		return 0, err
	}
	return cut - start, nil
}

// transcriptLine renders one message for the summarizer.
func transcriptLine(m *memory.Message) string {
	var b strings.Builder
	b.WriteString(m.Role)
	if m.Name != "" {
		b.WriteString(" (" + m.Name + ")")
	}
	b.WriteString(": ")
	b.WriteString(clip(refNotes(m.Content, m.Attachments), compactMaxMessageChars))
	for _, c := range m.ToolCalls {
		fmt.Fprintf(&b, " [calls %s %s]", c.Name, clip(c.Arguments, 200))
	}
	b.WriteByte('\n')
	return b.String()
}

// clip shortens s to at most n bytes on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// splitSummary separates a leading compaction record from the messages to
// send and returns the prompt section carrying it ("" when there is none).
func splitSummary(msgs []memory.Message) (section string, rest []memory.Message) {
	if len(msgs) == 0 || msgs[0].Kind != memory.KindCompaction {
		return "", msgs
	}
	// The summary is model output; it must not close the section early.
	text := strings.ReplaceAll(msgs[0].Content, "</conversation_summary", "<\\/conversation_summary")
	return "\n\n<conversation_summary>\nThe earlier part of this conversation was condensed into this summary:\n" +
		text + "\n</conversation_summary>", msgs[1:]
}

// compactCommand runs /compact: compaction on demand, whatever the size.
// The command itself is not stored in the session.
func (a *Agent) compactCommand(ctx context.Context, req Request) (*Reply, error) {
	unlock, err := a.sessions.Lock(ctx, req.SessionKey)
	if err != nil {
		return nil, errorf("agent: %w", err)
	}
	defer unlock()
	sess, err := a.sessions.Load(req.SessionKey)
	if err != nil {
		return nil, errorf("agent: load session %s: %w", req.SessionKey, err)
	}
	ctx, cancel := context.WithTimeoutCause(ctx, a.timeout, ErrTurnTimeout)
	defer cancel()
	start := time.Now()
	n, err := a.compact(ctx, sess, memory.CompactionCut(sess.Messages, memory.KeepRecent))
	if errors.Is(err, errNothingToCompact) {
		return &Reply{Text: fmt.Sprintf("Nothing to compact yet: the last turn and the %d messages before it are always kept as they are.", memory.KeepRecent)}, nil
	}
	if err != nil {
		return &Reply{Text: "Compaction failed; the conversation is unchanged. " + oneLine(err.Error())}, errorf("agent: compact: %w", err)
	}
	a.log.Info("compacted session on request", "session", req.SessionKey, "archived_messages", n, "dur", time.Since(start))
	noun := "messages"
	if n == 1 {
		noun = "message"
	}
	return &Reply{Text: fmt.Sprintf("Compacted %d earlier %s into a summary; the history archive keeps them word for word.", n, noun), Iterations: 1}, nil
}
