package agent

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/providers"
)

// Defaults of the limits that keep a turn's cost bounded.
const (
	// DefaultMaxRefusedRepeats is how many repeated tool calls the loop
	// guard may refuse in one turn before the turn ends (see
	// [LimitOptions].MaxRefusedRepeats).
	DefaultMaxRefusedRepeats = 2
	// DefaultMaxMessageBytes is the largest user message kept in the
	// session as is (see [LimitOptions].MaxMessageBytes): 256 KiB.
	DefaultMaxMessageBytes = 256 << 10
	// DefaultReplyReserve is how many tokens of the context window are
	// kept free for the answer when [RequestOptions].MaxTokens is zero;
	// at most a quarter of the window is kept.
	DefaultReplyReserve = 8192
	// DefaultWaitingNotice is how long a request may go without an
	// answer starting before the sink hears a [StreamEvent] Waiting.
	DefaultWaitingNotice = 2 * time.Second
)

// InboxDir is the workspace directory, relative to the workspace, that
// holds user messages too large to keep in the session (see
// [LimitOptions].MaxMessageBytes).
const InboxDir = "inbox"

// ErrRepeatedCalls is returned by [Agent.Process] when the model went on
// repeating a tool call the loop guard had refused, and the turn was ended
// (see [LimitOptions].MaxRefusedRepeats). It also matches
// [ErrIterationLimit], since the reply is the same summary.
var ErrRepeatedCalls = errors.New("the model kept repeating a refused tool call")

// ErrStopped is returned by [Agent.Process] when the caller's context was
// cancelled during the turn (Ctrl-C, a Stop button, a client that went
// away). The error also wraps the context's error. When part of the answer
// had been shown, [Reply.Text] is that part, [Reply.Interrupted] is set,
// and the session keeps it as an interrupted answer.
var ErrStopped = errors.New("turn stopped")

// ErrMessageTooLarge is returned by [Agent.Process] for a message over
// [LimitOptions].MaxMessageBytes when there is no workspace to keep it in;
// the session and the provider never see it.
var ErrMessageTooLarge = errors.New("message too large")

// stoppedNote follows the text of an answer the user stopped, in the
// requests of later turns, so the model knows it was cut off.
const stoppedNote = "\n\n[This answer was stopped by the user before it was finished.]"

// repeatedCallsError ends a turn whose model ignored the loop guard.
type repeatedCallsError struct {
	refused int
	setting string
}

func (e *repeatedCallsError) Error() string {
	return fmt.Sprintf("agent: %v: %d calls refused (%s)", ErrRepeatedCalls, e.refused, e.setting)
}

func (e *repeatedCallsError) Is(target error) bool {
	return target == ErrRepeatedCalls || target == ErrIterationLimit
}

// stopRepeats ends the turn after too many refused repeats, with the
// summary an iteration limit gives.
func (t *turn) stopRepeats(reply *Reply) (*Reply, error) {
	a := t.a
	reply.Text = fmt.Sprintf("I stopped after %d steps because the model kept repeating a tool call that had been refused "+
		"(%d refusals, the limit set by %s). I ran %d tool calls; what I did so far is saved. %s Ask me to continue, perhaps another way.",
		reply.Iterations, t.steps.refused, a.names.MaxRefusedRepeats, reply.ToolCalls, t.steps.summary())
	return reply, &repeatedCallsError{refused: t.steps.refused, setting: a.names.MaxRefusedRepeats}
}

// inboxPreview is how much of a message stored in the inbox the session
// keeps as a preview.
const inboxPreview = 2 << 10

// bigMessage handles a request whose text is over the cap: it stores the
// text in the workspace's inbox and replaces it with a reference, or,
// without a workspace, returns the refusal. It does nothing to a message
// within the cap.
func (a *Agent) bigMessage(req *Request) (*Reply, error) {
	n := len(req.Text)
	if n <= a.maxMessageBytes {
		return nil, nil
	}
	if a.workspace == "" {
		return &Reply{Text: fmt.Sprintf("Your message is %s, over the %s limit (%s), and there is no workspace to keep it in. "+
				"Send a shorter message, or raise %s.", byteSize(n), byteSize(a.maxMessageBytes), a.names.MaxMessageBytes, a.names.MaxMessageBytes)},
			errorf("agent: %w: %d bytes, over %d (%s)", ErrMessageTooLarge, n, a.maxMessageBytes, a.names.MaxMessageBytes)
	}
	rel, err := a.storeInbox(req.SessionKey, req.Text)
	if err != nil {
		return &Reply{Text: fmt.Sprintf("Your message is %s, over the %s limit (%s), and it could not be saved to the workspace: %s",
				byteSize(n), byteSize(a.maxMessageBytes), a.names.MaxMessageBytes, oneLine(err.Error()))},
			errorf("agent: %w: store it in the workspace: %w", ErrMessageTooLarge, err)
	}
	a.log.Info("large message stored in the workspace", "session", req.SessionKey, "bytes", n, "file", rel)
	preview := req.Text[:inboxPreview]
	for !utf8.ValidString(preview) && len(preview) > 0 {
		preview = preview[:len(preview)-1]
	}
	req.Text = fmt.Sprintf("[My message was %s, over the %s limit for a message, so it was saved in the workspace as %s. "+
		"Read that file with the file tools, in parts, as the task needs. It begins:]\n%s\n[…]", byteSize(n), byteSize(a.maxMessageBytes), filepath.ToSlash(rel), preview)
	return nil, nil
}

// storeInbox writes text to a new file under the workspace's inbox and
// returns its path relative to the workspace.
func (a *Agent) storeInbox(key, text string) (string, error) {
	dir := filepath.Join(a.workspace, InboxDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	base := strings.Map(func(r rune) rune {
		if r < 128 && (r == '-' || r == '.' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return r
		}
		return '_'
	}, key)
	base += "-" + a.now().UTC().Format("20060102T150405Z")
	for i := 1; ; i++ {
		name := base + ".txt"
		if i > 1 {
			name = fmt.Sprintf("%s-%d.txt", base, i)
		}
		path := filepath.Join(dir, name)
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) && i < 100 {
			continue
		}
		if err != nil {
			return "", err
		}
		_, err = f.WriteString(text)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			_ = os.Remove(path)
			return "", err
		}
		return filepath.Join(InboxDir, name), nil
	}
}

// windowBudget is how many tokens a request for model may take: its
// context window less the room kept for the answer.
func (a *Agent) windowBudget(model string) int {
	w := a.contextWindow
	if w <= 0 {
		w = providers.ContextWindow(model)
	}
	reserve := a.maxTokens
	if reserve <= 0 {
		reserve = min(DefaultReplyReserve, w/4)
	}
	return max(w-reserve, w/4)
}

// messageTokens estimates one request message the way estimateTokens
// does a stored one.
func messageTokens(m *providers.Message) int {
	n := len(m.Content) + 16
	for _, c := range m.ToolCalls {
		n += len(c.Function.Name) + len(c.Function.Arguments) + 16
	}
	return n / 4
}

// toolDefFrame is the JSON around one tool definition's name, description
// and parameters in a request.
const toolDefFrame = len(`{"type":"function","function":{"name":"","description":"","parameters":}},`)

// toolTokens estimates the size of the tool definitions in a request, at
// four bytes a token like the rest of the window's arithmetic. It adds up
// the lengths instead of encoding the list, which every request of every
// turn would otherwise pay for (on the path to the first token): the
// parameters are counted as given, white space and all, so the estimate
// is never below the encoded size but for the escaping of a description.
func toolTokens(defs []providers.ToolDefinition) int {
	n := 0
	for i := range defs {
		f := &defs[i].Function
		n += toolDefFrame + len(f.Name) + len(f.Description) + len(f.Parameters)
	}
	return n / 4
}

// clippedNote replaces what a request leaves out of one message.
const clippedNote = "\n[… %d bytes of this message are left out here to fit the model's context window; the session keeps all of it.]"

// fitWindow returns msgs (system message first) shaped to fit budget
// tokens beside overhead (the tool definitions): first the oldest history
// is left out, at a user message so no tool result loses its call, down to
// the last user message; then the longest contents are clipped. The
// session is not changed; only this request is smaller. msgs itself is
// returned when it fits.
func fitWindow(msgs []providers.Message, budget, overhead int) (out []providers.Message, dropped, clipped int) {
	total := overhead
	for i := range msgs {
		total += messageTokens(&msgs[i])
	}
	if total <= budget || len(msgs) < 2 {
		return msgs, 0, 0
	}
	last := len(msgs) - 1
	for last > 1 && msgs[last].Role != providers.RoleUser {
		last--
	}
	// Leave out the oldest messages, one user-led stretch at a time.
	start := 1
	for start < last && total > budget {
		next := start + 1
		for next < last && msgs[next].Role != providers.RoleUser {
			next++
		}
		for i := start; i < next; i++ {
			total -= messageTokens(&msgs[i])
		}
		start = next
	}
	out = make([]providers.Message, 0, len(msgs)-start+1)
	out = append(out, msgs[0])
	out = append(out, msgs[start:]...)
	dropped = start - 1
	if total <= budget {
		return out, dropped, 0
	}
	// Still too large: cap every content at the largest length that fits,
	// the system prompt last.
	capContents := func(from int) bool {
		fixed := overhead
		longest := 0
		for i := range out {
			m := out[i]
			if i >= from {
				fixed += messageTokens(&providers.Message{ToolCalls: m.ToolCalls}) + (len(clippedNote)+8)/4
				longest = max(longest, len(m.Content))
			} else {
				fixed += messageTokens(&m)
			}
		}
		room := (budget - fixed) * 4
		if room <= 0 {
			return false
		}
		// The largest c with the sum of min(len, c) within room.
		lo, hi := 0, longest
		for lo < hi {
			c := (lo + hi + 1) / 2
			sum := 0
			for i := from; i < len(out); i++ {
				sum += min(len(out[i].Content), c)
			}
			if sum <= room {
				lo = c
			} else {
				hi = c - 1
			}
		}
		for i := from; i < len(out); i++ {
			if len(out[i].Content) > lo {
				out[i].Content = clipContent(out[i].Content, lo)
				clipped++
			}
		}
		return true
	}
	if !capContents(1) {
		capContents(0)
	}
	return out, dropped, clipped
}

// clipContent keeps the first n bytes of s (at a rune boundary) and notes
// how much was left out.
func clipContent(s string, n int) string {
	keep := s[:n]
	for len(keep) > 0 && !utf8.ValidString(keep) {
		keep = keep[:len(keep)-1]
	}
	return keep + fmt.Sprintf(clippedNote, len(s)-len(keep))
}

// stoppedContent is the content of a stored message as later requests
// send it: an answer the user stopped carries a note saying so.
func stoppedContent(m *memory.Message) string {
	if m.Kind == memory.KindInterrupted && m.Role == providers.RoleAssistant && m.Content != memory.InterruptedText {
		return m.Content + stoppedNote
	}
	return m.Content
}

// firstByteTimeout reports whether err is a provider that never started
// answering: asking it again without streaming would wait for the whole
// request timeout, unbounded by the first-byte limit.
func firstByteTimeout(err error) bool {
	var te *providers.TransportError
	return errors.As(err, &te) && te.FirstByte
}

// waitFor starts telling the sink that the turn waits for the model, after
// the agent's WaitingNotice and then at that interval, and returns the
// function that stops it, to be called when the answer starts (any number
// of times). The sink is serialized from then on, since the notices come
// from a timer.
//
// The notices come from a timer function rather than a goroutine of their
// own, and stopping them takes the sink's lock rather than waiting for
// that goroutine to run: the first token goes out without waiting for the
// scheduler. Once started has returned no notice is sent: a notice being
// sent holds the lock, and one sent later sees stopped under it.
func (t *turn) waitFor() (started func()) {
	if t.sink == nil || t.a.waitingNotice <= 0 {
		return func() {}
	}
	t.serializeSink()
	begun := time.Now()
	every := t.a.waitingNotice
	stopped := false // under t.sinkMu
	var timer *time.Timer
	t.sinkMu.Lock() // the timer function reads timer under it
	timer = time.AfterFunc(every, func() {
		t.sinkMu.Lock()
		defer t.sinkMu.Unlock()
		if stopped {
			return
		}
		t.rawSink(StreamEvent{Waiting: time.Since(begun)})
		timer.Reset(every)
	})
	t.sinkMu.Unlock()
	var once bool
	return func() {
		if once {
			return
		}
		once = true
		timer.Stop()
		t.sinkMu.Lock()
		stopped = true
		t.sinkMu.Unlock()
	}
}

// serializeSink makes t.sink take t.sinkMu, once per turn.
func (t *turn) serializeSink() {
	if t.rawSink != nil {
		return
	}
	t.rawSink = t.sink
	t.sink = func(e StreamEvent) {
		t.sinkMu.Lock()
		defer t.sinkMu.Unlock()
		t.rawSink(e)
	}
}
