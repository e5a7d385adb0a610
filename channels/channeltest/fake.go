package channeltest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/joshbot/joshbot/channels"
)

// FakeMessageLimit is how many runes one message of a [Fake] carries (the
// same as Telegram): [Sent.Pieces] is the text split at it.
const FakeMessageLimit = 4096

// AwaitTimeout is how long [Fake.Await] waits before it fails the test.
const AwaitTimeout = 10 * time.Second

// retryEvery paces the fake's redelivery of a message the sink refused,
// the way a platform sends an unacknowledged message again.
const retryEvery = 10 * time.Millisecond

// Fake is an in-memory chat platform and its adapter in one: a
// [channels.Channel] with every optional ability of the contract
// ([channels.TypingIndicator], [channels.Streamer], [channels.Picker],
// [channels.CommandMenu], [channels.ApprovalPrompter]). It records
// everything it is sent, lets a test play the people on the other side
// (inject messages, pick choices, press Stop, answer approvals), and wakes
// waiters on every change instead of making them poll. Create one with
// [NewFake]. All methods are safe for concurrent use.
type Fake struct {
	name string

	mu      sync.Mutex
	changed chan struct{} // closed and replaced on every change
	wake    chan struct{} // tells Start the queue or the connection changed
	sink    channels.Sink // non-nil while Start runs
	conn    int           // connection generation; Disconnect bumps it
	queue   []channels.Inbound
	picks   int // picks so far, for their message ids

	sent       []Sent
	streams    []*fakeStream
	typing     []*typingState
	menus      [][]channels.Command
	pickers    []PickerRecord
	approvals  []*approvalState
	delivered  []channels.Inbound
	refused    int
	reconnects int
	edits      []EditRecord
}

// NewFake returns a fake channel named "fake".
func NewFake() *Fake { return NewFakeNamed("fake") }

// NewFakeNamed returns a fake channel with the given name, for code that
// looks channels up by name (an allowlist keyed "telegram", say).
func NewFakeNamed(name string) *Fake {
	return &Fake{name: name, changed: make(chan struct{}), wake: make(chan struct{}, 1)}
}

var (
	_ channels.Channel          = (*Fake)(nil)
	_ channels.TypingIndicator  = (*Fake)(nil)
	_ channels.Streamer         = (*Fake)(nil)
	_ channels.Picker           = (*Fake)(nil)
	_ channels.CommandMenu      = (*Fake)(nil)
	_ channels.ApprovalPrompter = (*Fake)(nil)
	_ channels.Editor           = (*Fake)(nil)
	_ channels.Stream           = (*fakeStream)(nil)
	_ channels.ShownStream      = (*fakeStream)(nil)
)

// Record is a snapshot of what a [Fake] has seen, each list in the order
// things happened. It is a copy: later activity does not change it.
type Record struct {
	// Sent holds every Send.
	Sent []Sent
	// Streams holds every live reply StartStream began.
	Streams []StreamRecord
	// Typing holds every typing indicator shown.
	Typing []TypingRecord
	// Menus holds every command menu published.
	Menus [][]channels.Command
	// Pickers holds every picker posted.
	Pickers []PickerRecord
	// Approvals holds every approval prompt posted.
	Approvals []ApprovalRecord
	// Delivered holds the injected messages the sink accepted (Deliver
	// returned nil), which the platform counts as acknowledged.
	Delivered []channels.Inbound
	// Refused counts Deliver calls that returned an error; the message
	// was delivered again.
	Refused int
	// Reconnects counts the connections Start made again after
	// [Fake.Disconnect].
	Reconnects int
	// Edits holds every EditMessage.
	Edits []EditRecord
}

// EditRecord is one [Fake.EditMessage].
type EditRecord struct {
	// Conversation and MessageID name the message edited.
	Conversation, MessageID string
	// Text is its new text.
	Text string
}

// Sent is one Send.
type Sent struct {
	// Conversation is where it was sent.
	Conversation string
	// Message is what was sent.
	Message channels.Outbound
	// Pieces is Message.Text as the platform would show it: split by
	// [channels.Chunk] at [FakeMessageLimit].
	Pieces []string
}

// SentTo returns the messages sent into conversation, in order.
func (r Record) SentTo(conversation string) []channels.Outbound {
	var out []channels.Outbound
	for _, s := range r.Sent {
		if s.Conversation == conversation {
			out = append(out, s.Message)
		}
	}
	return out
}

// PendingApprovals returns the approval prompts nobody has answered and
// whose asker still waits.
func (r Record) PendingApprovals() []ApprovalRecord {
	var out []ApprovalRecord
	for _, a := range r.Approvals {
		if !a.Answered && !a.Expired {
			out = append(out, a)
		}
	}
	return out
}

// String summarizes the record for a failure message.
func (r Record) String() string {
	return fmt.Sprintf("%d sent, %d streams (%d finished), %d typing, %d menus, %d pickers, %d approvals (%d pending), %d delivered, %d refused, %d reconnects",
		len(r.Sent), len(r.Streams), countIf(r.Streams, func(s StreamRecord) bool { return s.Finished }),
		len(r.Typing), len(r.Menus), len(r.Pickers), len(r.Approvals), len(r.PendingApprovals()),
		len(r.Delivered), r.Refused, r.Reconnects)
}

func countIf[T any](xs []T, f func(T) bool) int {
	n := 0
	for _, x := range xs {
		if f(x) {
			n++
		}
	}
	return n
}

// StreamRecord is one live reply.
type StreamRecord struct {
	// Conversation is where the reply is written.
	Conversation string
	// ReplyTo is StreamOptions.ReplyTo.
	ReplyTo string
	// Stoppable reports whether StreamOptions.Cancel was set, so the
	// reply shows a stop control.
	Stoppable bool
	// Updates holds every Update, in order (each the whole text so far).
	Updates []string
	// Statuses holds every Status line, in order.
	Statuses []string
	// Finished reports whether Finish was called.
	Finished bool
	// Final is the text of the first Finish.
	Final string
	// MessageID is the live message's id, reported to OnShown.
	MessageID string

	s *fakeStream
}

// PressStop uses the reply's stop control, as the user would: it calls
// StreamOptions.Cancel and reports true, or reports false when the reply
// has no stop control or has finished (the control is gone).
func (r StreamRecord) PressStop() bool {
	s := r.s
	s.f.mu.Lock()
	cancel := s.cancel
	if s.finished {
		cancel = nil
	}
	s.f.mu.Unlock()
	if cancel == nil {
		return false
	}
	cancel()
	return true
}

// TypingRecord is one typing indicator.
type TypingRecord struct {
	// Conversation is where it shows.
	Conversation string
	// Stopped reports whether it was stopped (stop called or its context
	// ended).
	Stopped bool
}

// PickerRecord is one picker posted with SendPicker.
type PickerRecord struct {
	// Conversation is where the picker was posted.
	Conversation string
	// Title is the text above the buttons.
	Title string
	// Choices are the buttons, in order.
	Choices []channels.Choice
	// ReplyTo is the message the picker threads to.
	ReplyTo string

	f *Fake
}

// Pick makes principal pick choice i: the fake delivers, through the sink
// Start runs with, an [channels.Inbound] whose Text is the choice's Value,
// in the picker's conversation, marked IsDirect and Mentioned, with a
// fresh MessageID. It returns an error when i is out of range.
func (p PickerRecord) Pick(principal string, i int) error {
	if i < 0 || i >= len(p.Choices) {
		return fmt.Errorf("channeltest: picker %q has %d choices, no choice %d", p.Title, len(p.Choices), i)
	}
	p.f.mu.Lock()
	p.f.picks++
	id := fmt.Sprintf("pick-%d", p.f.picks)
	p.f.mu.Unlock()
	p.f.Inject(channels.Inbound{
		Conversation: p.Conversation,
		Principal:    principal,
		Text:         p.Choices[i].Value,
		MessageID:    id,
		IsDirect:     true,
		Mentioned:    true,
	})
	return nil
}

// ApprovalRecord is one approval prompt.
type ApprovalRecord struct {
	// Conversation is where the prompt was posted.
	Conversation string
	// RequestID is the asker's id of the request.
	RequestID string
	// Prompt is the question, as the asker wrote it.
	Prompt string
	// OfferSession reports whether "allow for session" was offered.
	OfferSession bool
	// Answered reports whether [ApprovalRecord.Answer] settled it;
	// Decision is the answer.
	Answered bool
	Decision channels.Decision
	// Expired reports that the asker's context ended before an answer:
	// Approve returned DecisionDeny.
	Expired bool

	a *approvalState
}

// Answer presses the button for d, as an admitted user would. It reports
// false when the prompt was already answered or has expired.
func (r ApprovalRecord) Answer(d channels.Decision) bool {
	a := r.a
	a.f.mu.Lock()
	defer a.f.mu.Unlock()
	if a.rec.Answered || a.rec.Expired {
		return false
	}
	a.rec.Answered, a.rec.Decision = true, d
	a.answer <- d
	a.f.touchLocked()
	return true
}

type typingState struct{ rec TypingRecord }

type approvalState struct {
	f      *Fake
	rec    ApprovalRecord
	answer chan channels.Decision // buffered 1
}

// Name implements [channels.Channel].
func (f *Fake) Name() string { return f.name }

// Start implements [channels.Channel]: it hands each injected message to
// sink in order, removing it once Deliver returned nil and delivering it
// again after a refusal, until ctx ends; then it returns ctx.Err(). Only
// one Start may run at a time.
func (f *Fake) Start(ctx context.Context, sink channels.Sink) error {
	f.mu.Lock()
	if f.sink != nil {
		f.mu.Unlock()
		return errors.New("channeltest: Start called while another Start runs")
	}
	f.sink = sink
	seen := f.conn
	f.touchLocked()
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.sink = nil
		f.touchLocked()
		f.mu.Unlock()
	}()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		f.mu.Lock()
		if f.conn != seen {
			seen = f.conn
			f.reconnects++
			f.touchLocked()
		}
		var next channels.Inbound
		ok := len(f.queue) > 0
		if ok {
			next = f.queue[0]
		}
		f.mu.Unlock()
		if !ok {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-f.wake:
			}
			continue
		}
		err := sink.Deliver(ctx, next)
		f.mu.Lock()
		if err != nil {
			f.refused++
		} else {
			f.queue = f.queue[1:]
			f.delivered = append(f.delivered, next)
		}
		f.touchLocked()
		f.mu.Unlock()
		if err != nil {
			t := time.NewTimer(retryEvery)
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-t.C:
			}
		}
	}
}

// Inject makes the platform send inb to the bot: Start hands it to its
// sink (now, or once Start runs). An empty Channel is filled with the
// fake's name. Injecting the same MessageID again is a redelivery.
func (f *Fake) Inject(inb channels.Inbound) {
	if inb.Channel == "" {
		inb.Channel = f.name
	}
	inb.Attachments = slices.Clone(inb.Attachments)
	f.mu.Lock()
	f.queue = append(f.queue, inb)
	f.touchLocked()
	f.mu.Unlock()
	f.kick()
}

// Disconnect drops the fake's connection, the way a network failure would:
// Start connects again without returning (counted in Record.Reconnects),
// and messages injected meanwhile are delivered after.
func (f *Fake) Disconnect() {
	f.mu.Lock()
	f.conn++
	f.mu.Unlock()
	f.kick()
}

func (f *Fake) kick() {
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// Send implements [channels.Channel]; it records msg.
func (f *Fake) Send(ctx context.Context, conversation string, msg channels.Outbound) error {
	if err := check(ctx, conversation); err != nil {
		return err
	}
	msg.Files = slices.Clone(msg.Files)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sent = append(f.sent, Sent{Conversation: conversation, Message: msg, Pieces: channels.Chunk(msg.Text, FakeMessageLimit)})
	f.touchLocked()
	return nil
}

func check(ctx context.Context, conversation string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if conversation == "" {
		return errors.New("channeltest: empty conversation")
	}
	return nil
}

// Typing implements [channels.TypingIndicator]; it records the indicator,
// and that it stopped.
func (f *Fake) Typing(ctx context.Context, conversation string) (stop func()) {
	st := &typingState{rec: TypingRecord{Conversation: conversation}}
	f.mu.Lock()
	f.typing = append(f.typing, st)
	f.touchLocked()
	f.mu.Unlock()
	end := func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		if !st.rec.Stopped {
			st.rec.Stopped = true
			f.touchLocked()
		}
	}
	unregister := context.AfterFunc(ctx, end)
	return func() {
		unregister()
		end()
	}
}

// fakeStream is the fake's [channels.Stream].
type fakeStream struct {
	f        *Fake
	rec      StreamRecord // guarded by f.mu
	cancel   context.CancelFunc
	finished bool
	onShown  func(id, text string)
}

// StartStream implements [channels.Streamer]; the stream records every
// Update, Status and the Finish.
func (f *Fake) StartStream(ctx context.Context, conversation string, opts *channels.StreamOptions) (channels.Stream, error) {
	if conversation == "" {
		return nil, errors.New("channeltest: empty conversation")
	}
	if opts == nil {
		opts = &channels.StreamOptions{}
	}
	s := &fakeStream{f: f, cancel: opts.Cancel, rec: StreamRecord{
		Conversation: conversation, ReplyTo: opts.ReplyTo, Stoppable: opts.Cancel != nil,
	}}
	s.rec.s = s
	f.mu.Lock()
	s.rec.MessageID = fmt.Sprintf("live-%d", len(f.streams)+1)
	f.streams = append(f.streams, s)
	f.touchLocked()
	f.mu.Unlock()
	return s, nil
}

func (s *fakeStream) Update(text string) {
	s.f.mu.Lock()
	s.rec.Updates = append(s.rec.Updates, text)
	s.shownLocked()
}

func (s *fakeStream) Status(line string) {
	s.f.mu.Lock()
	s.rec.Statuses = append(s.rec.Statuses, line)
	s.shownLocked()
}

// OnShown implements [channels.ShownStream]: the fake "shows" every
// Update and Status at once, as the latest text and status line.
func (s *fakeStream) OnShown(fn func(id, text string)) {
	s.f.mu.Lock()
	s.onShown = fn
	s.f.mu.Unlock()
}

// shownLocked reports what the live message shows now to OnShown's
// function, and unlocks f.mu before calling it.
func (s *fakeStream) shownLocked() {
	s.f.touchLocked()
	fn, id, text := s.onShown, s.rec.MessageID, ""
	if n := len(s.rec.Updates); n > 0 {
		text = s.rec.Updates[n-1]
	}
	if n := len(s.rec.Statuses); n > 0 && s.rec.Statuses[n-1] != "" {
		if text != "" {
			text += "\n\n"
		}
		text += s.rec.Statuses[n-1]
	}
	if s.finished {
		fn = nil
	}
	s.f.mu.Unlock()
	if fn != nil {
		fn(id, text)
	}
}

// EditMessage implements [channels.Editor]; the edit is recorded in
// Record.Edits.
func (f *Fake) EditMessage(ctx context.Context, conversation, id, text string) error {
	if err := check(ctx, conversation); err != nil {
		return err
	}
	if id == "" {
		return errors.New("channeltest: empty message id")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.edits = append(f.edits, EditRecord{Conversation: conversation, MessageID: id, Text: text})
	f.touchLocked()
	return nil
}

func (s *fakeStream) Finish(_ context.Context, text string) error {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	if s.finished {
		return nil
	}
	s.finished = true
	s.rec.Finished, s.rec.Final = true, text
	s.f.touchLocked()
	return nil
}

// SendPicker implements [channels.Picker]; see [PickerRecord.Pick] for
// playing the user who picks.
func (f *Fake) SendPicker(ctx context.Context, conversation, title string, choices []channels.Choice, replyTo string) error {
	if err := check(ctx, conversation); err != nil {
		return err
	}
	if len(choices) == 0 {
		return errors.New("channeltest: a picker needs at least one choice")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pickers = append(f.pickers, PickerRecord{Conversation: conversation, Title: title, Choices: slices.Clone(choices), ReplyTo: replyTo, f: f})
	f.touchLocked()
	return nil
}

// SetCommands implements [channels.CommandMenu]. It refuses an entry with
// an empty name or description, naming it, and records nothing then.
func (f *Fake) SetCommands(ctx context.Context, menu []channels.Command) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	for i, c := range menu {
		if c.Name == "" || strings.HasPrefix(c.Name, "/") {
			return fmt.Errorf("channeltest: command %d has the name %q: want a name without its slash", i, c.Name)
		}
		if strings.TrimSpace(c.Description) == "" {
			return fmt.Errorf("channeltest: command %q needs a description", c.Name)
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.menus = append(f.menus, slices.Clone(menu))
	f.touchLocked()
	return nil
}

// Approve implements [channels.ApprovalPrompter]: it records the prompt
// and waits for [ApprovalRecord.Answer], or returns DecisionDeny and a nil
// error when ctx ends first (the record is then Expired).
func (f *Fake) Approve(ctx context.Context, conversation, requestID, prompt string, offerSession bool) (channels.Decision, error) {
	if err := check(ctx, conversation); err != nil {
		return channels.DecisionDeny, err
	}
	a := &approvalState{f: f, answer: make(chan channels.Decision, 1), rec: ApprovalRecord{
		Conversation: conversation, RequestID: requestID, Prompt: prompt, OfferSession: offerSession,
	}}
	a.rec.a = a
	f.mu.Lock()
	f.approvals = append(f.approvals, a)
	f.touchLocked()
	f.mu.Unlock()
	select {
	case d := <-a.answer:
		return d, nil
	case <-ctx.Done():
		f.mu.Lock()
		defer f.mu.Unlock()
		select {
		case d := <-a.answer: // answered at the same moment: the answer wins
			return d, nil
		default:
		}
		a.rec.Expired = true
		f.touchLocked()
		return channels.DecisionDeny, nil
	}
}

// touchLocked wakes every waiter. f.mu must be held.
func (f *Fake) touchLocked() {
	close(f.changed)
	f.changed = make(chan struct{})
}

// Record returns a snapshot of what the fake has seen so far.
func (f *Fake) Record() Record {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.recordLocked()
}

func (f *Fake) recordLocked() Record {
	r := Record{
		Sent:       slices.Clone(f.sent),
		Delivered:  slices.Clone(f.delivered),
		Refused:    f.refused,
		Reconnects: f.reconnects,
		Pickers:    slices.Clone(f.pickers),
		Edits:      slices.Clone(f.edits),
	}
	for _, m := range f.menus {
		r.Menus = append(r.Menus, slices.Clone(m))
	}
	for _, s := range f.streams {
		rec := s.rec
		rec.Updates = slices.Clone(rec.Updates)
		rec.Statuses = slices.Clone(rec.Statuses)
		r.Streams = append(r.Streams, rec)
	}
	for _, t := range f.typing {
		r.Typing = append(r.Typing, t.rec)
	}
	for _, a := range f.approvals {
		r.Approvals = append(r.Approvals, a.rec)
	}
	return r
}

// Wait blocks until cond holds for the record, and returns that record. It
// checks cond again on every change, never on a timer. When ctx ends first
// it returns the last record and an error that summarizes it.
func (f *Fake) Wait(ctx context.Context, cond func(Record) bool) (Record, error) {
	for {
		f.mu.Lock()
		rec := f.recordLocked()
		changed := f.changed
		f.mu.Unlock()
		if cond(rec) {
			return rec, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return rec, fmt.Errorf("channeltest: %w while waiting; the fake has seen %v", ctx.Err(), rec)
		}
	}
}

// Await is [Fake.Wait] for a test: it waits up to [AwaitTimeout] for cond
// and fails t, naming what it waited for, if it never holds.
func (f *Fake) Await(t testing.TB, what string, cond func(Record) bool) Record {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), AwaitTimeout)
	defer cancel()
	rec, err := f.Wait(ctx, cond)
	if err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
	return rec
}
