package telegram

import (
	"context"
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	tele "gopkg.in/telebot.v3"

	"github.com/joshbot/joshbot/channels"
)

// editEvery is the least time between two writes of a streamed reply:
// Telegram rate-limits edits, and a reply that flickers is no easier to
// read.
const editEvery = 3 * time.Second

// StreamOptions configures a streamed reply. In draft mode
// (Options.StreamDrafts in a private chat) no Stop button is shown: a
// draft carries no buttons.
//
// Deprecated: use [channels.StreamOptions]; this is the same type under its
// old name.
type StreamOptions = channels.StreamOptions

// Stream is one reply being written while the agent works: a live status
// line ("⚙️ shell: go test ./...") and the growing answer, shown by editing
// one message at most every three seconds, or in private chats with
// Options.StreamDrafts as a native draft. Finish replaces it with the final
// answer. It implements [channels.Stream]. Its methods are safe for
// concurrent use; Finish must be called once, and always releases the Stop
// button.
type Stream struct {
	t       *Telegram
	chat    int64
	thread  int
	replyTo int
	draftID int64
	stopTok string
	stopped chan struct{} // closed by Finish
	loopEnd chan struct{} // closed when the writer goroutine ends
	wake    chan struct{}

	mu     sync.Mutex
	text   string // the answer so far
	status string // the current tool-progress line
	draft  bool   // drafts are in use (cleared by the first refusal)
	msgID  int    // the live message in edit mode
	shown  string // what the live message or draft shows
	last   time.Time
	// onShown hears of each post and edit of the live message.
	onShown func(id, text string)
}

// StartStream implements [channels.Streamer]: it starts a streamed reply
// in conversation. Nothing is posted until the first Update or Status,
// except in draft mode, where an empty draft shows Telegram's own
// "Thinking…" placeholder at once. It does not wait for the network. The
// returned stream is a [*Stream].
func (t *Telegram) StartStream(ctx context.Context, conversation string, opts *channels.StreamOptions) (channels.Stream, error) {
	s, err := t.newStream(ctx, conversation, opts)
	if err != nil {
		return nil, err // not a typed nil inside the interface
	}
	return s, nil
}

// NewStream is [Telegram.StartStream] returning the concrete [*Stream].
//
// Deprecated: use StartStream, the [channels.Streamer] ability; its
// [channels.Stream] has the same methods.
func (t *Telegram) NewStream(ctx context.Context, conversation string, opts *channels.StreamOptions) (*Stream, error) {
	return t.newStream(ctx, conversation, opts)
}

func (t *Telegram) newStream(ctx context.Context, conversation string, opts *channels.StreamOptions) (*Stream, error) {
	chat, thread, err := parseConversation(conversation)
	if err != nil {
		return nil, err
	}
	if opts == nil {
		opts = &channels.StreamOptions{}
	}
	s := &Stream{
		t: t, chat: chat, thread: thread, replyTo: replyTarget(opts.ReplyTo),
		draftID: rand.Int64N(1<<31) + 1,
		// Private chats have positive ids; drafts exist only there.
		draft:   t.opts.StreamDrafts && chat > 0,
		stopped: make(chan struct{}),
		loopEnd: make(chan struct{}),
		wake:    make(chan struct{}, 1),
	}
	if opts.Cancel != nil && !s.draft {
		s.stopTok = newToken()
		t.mu.Lock()
		t.stops[s.stopTok] = &stopEntry{chat: chat, cancel: opts.Cancel}
		t.mu.Unlock()
	}
	wctx := context.WithoutCancel(ctx)
	go func() {
		if s.draft {
			// Off the caller's path: a slow Bot API must not delay the turn.
			s.writeDraft(wctx, "")
		}
		s.loop(wctx)
	}()
	return s, nil
}

// Update sets the answer so far (the whole text, not a delta).
func (s *Stream) Update(text string) {
	s.mu.Lock()
	s.text = text
	s.mu.Unlock()
	s.kick()
}

// Status sets the tool-progress line shown under the answer so far; the
// final answer replaces it. An empty line clears it.
func (s *Stream) Status(line string) {
	s.mu.Lock()
	s.status = line
	s.mu.Unlock()
	s.kick()
}

func (s *Stream) kick() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// loop writes the latest state, never more often than editEvery.
func (s *Stream) loop(ctx context.Context) {
	defer close(s.loopEnd)
	for {
		select {
		case <-s.wake:
		case <-s.stopped:
			return
		}
		s.mu.Lock()
		wait := editEvery - s.t.clock.now().Sub(s.last)
		s.mu.Unlock()
		if wait > 0 && !s.last.IsZero() {
			select {
			case <-s.t.clock.after(wait):
			case <-s.stopped:
				return
			}
		}
		s.flush(ctx)
	}
}

// display is what the live message shows: the end of the answer so far
// (a live message holds one piece) and the status line.
func (s *Stream) display() string {
	text := s.text
	if n := utf8.RuneCountInString(text); n > maxMessage-200 {
		r := []rune(text)
		text = "…" + string(r[n-(maxMessage-200):])
	}
	if s.status != "" {
		if text != "" {
			text += "\n\n"
		}
		text += s.status
	}
	return text
}

func (s *Stream) flush(ctx context.Context) {
	s.mu.Lock()
	d := s.display()
	same := d == s.shown
	draft := s.draft
	s.mu.Unlock()
	if same || strings.TrimSpace(d) == "" {
		return
	}
	if draft && s.writeDraft(ctx, d) {
		return
	}
	s.writeLive(ctx, d)
}

// writeDraft shows text as the chat's draft. The first refusal turns
// drafts off for this stream and reports false, so the edit loop carries
// the answer from here on: an old server costs the animation, not the
// reply.
func (s *Stream) writeDraft(ctx context.Context, text string) bool {
	params := map[string]any{"chat_id": s.chat, "draft_id": s.draftID, "text": renderHTML(text, nil), "parse_mode": "HTML"}
	if s.thread != 0 {
		params["message_thread_id"] = s.thread
	}
	err := s.t.raw(ctx, "sendMessageDraft", params)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.t.log.Debug("draft refused; editing a message instead for this reply", "err", s.t.scrub(err))
		s.draft = false
		return false
	}
	s.shown = text
	s.last = s.t.clock.now()
	return true
}

func (s *Stream) stopMarkup() *tele.ReplyMarkup {
	if s.stopTok == "" {
		return nil
	}
	return &tele.ReplyMarkup{InlineKeyboard: [][]tele.InlineButton{{{Text: "⏹ Stop", Data: "s:" + s.stopTok}}}}
}

// writeLive sends or edits the live message.
func (s *Stream) writeLive(ctx context.Context, text string) {
	s.mu.Lock()
	id := s.msgID
	s.mu.Unlock()
	var err error
	if id == 0 {
		var sent []*tele.Message
		sent, err = s.t.sendText(ctx, s.chat, s.thread, s.replyTo, text, s.stopMarkup())
		if len(sent) > 0 {
			id = sent[0].ID
		}
	} else {
		err = s.t.editPiece(ctx, s.chat, id, text, nil, s.stopMarkup())
	}
	s.mu.Lock()
	s.last = s.t.clock.now()
	if err != nil {
		s.mu.Unlock()
		s.t.log.Debug("streamed reply not updated", "err", s.t.scrub(err))
		return
	}
	s.msgID = id
	s.shown = text
	fn := s.onShown
	s.mu.Unlock()
	if fn != nil {
		fn(strconv.Itoa(id), text)
	}
}

// Finish replaces the live message (status line, partial answer, Stop
// button) with the final text, split and threaded like [Telegram.Send], a
// text over Options.MaxChunks pieces becoming a head message with the
// whole text attached as reply.md; in draft mode it persists the text with
// an ordinary message, since a draft is only a preview. It always releases
// the Stop button, and it writes the live message's final state even when
// ctx is already cancelled (a Stop press cancels the turn, and the answer
// so far still needs a home); the pieces after it and the attachment keep
// to the chat's pace and stop when ctx ends, so shutdown keeps its grace
// period, with the cut-off part logged.
func (s *Stream) Finish(ctx context.Context, text string) error {
	keep := context.WithoutCancel(ctx)
	select {
	case <-s.stopped:
		return nil // finished already
	default:
		close(s.stopped)
	}
	<-s.loopEnd
	if s.stopTok != "" {
		s.t.mu.Lock()
		delete(s.t.stops, s.stopTok)
		s.t.mu.Unlock()
	}
	s.mu.Lock()
	id := s.msgID
	s.mu.Unlock()
	if s.replyTo != 0 {
		s.t.react(keep, s.chat, s.replyTo, ReactionReplied)
	}
	if strings.TrimSpace(text) == "" {
		if id == 0 {
			return nil
		}
		// Nothing to replace the status line with: remove it.
		return s.t.call(keep, func() error { return s.t.bot.Delete(&tele.Message{ID: id, Chat: &tele.Chat{ID: s.chat}}) })
	}
	reply := s.t.fitReply(s.chat, channels.Outbound{Text: text})
	ps := pieces(reply.Text)
	var open *string
	threaded := &tele.SendOptions{ThreadID: s.thread, AllowWithoutReply: true}
	if s.replyTo != 0 {
		threaded.ReplyTo = &tele.Message{ID: s.replyTo}
	}
	// The first piece goes out whatever ctx says: into the live message
	// when there is one, else (or when it is gone) as a new message.
	if id == 0 || s.t.editPiece(keep, s.chat, id, ps[0], nil, nil) != nil {
		if _, err := s.t.sendPiece(keep, s.chat, ps[0], nil, threaded); err != nil {
			return err
		}
	}
	open = fenceAfter(ps[0], open)
	for i, p := range ps[1:] {
		if err := s.t.pace(ctx, s.chat); err != nil {
			return s.t.cutOff(s.chat, ps[1+i:], err)
		}
		if _, err := s.t.sendPiece(ctx, s.chat, p, open, &tele.SendOptions{ThreadID: s.thread}); err != nil {
			if ctx.Err() != nil {
				return s.t.cutOff(s.chat, ps[1+i:], ctx.Err())
			}
			return err
		}
		open = fenceAfter(p, open)
	}
	var errs []error
	for _, f := range reply.Files {
		if ctx.Err() != nil {
			s.t.log.Warn("reply cut off by shutdown: a file was not sent", "chat", s.chat, "file", f.Name)
			errs = append(errs, errorf("telegram: %s not sent: %w", f.Name, ctx.Err()))
			continue
		}
		if err := s.t.sendFile(ctx, s.chat, s.thread, 0, f, ""); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
