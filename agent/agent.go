package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/providers"
	"github.com/joshbot/joshbot/tools"
)

// Default limits, used when the corresponding option is zero.
const (
	DefaultMaxIterations = 50
	DefaultTimeout       = 2 * time.Minute
	// DefaultHistoryLimit is how many stored messages a turn sends at most.
	DefaultHistoryLimit = 200
)

// ErrIterationLimit is returned by [Agent.Process] when the model was still
// calling tools after the configured number of iterations.
var ErrIterationLimit = errors.New("iteration limit reached")

// ErrTurnTimeout is returned by [Agent.Process] when the turn ran past its
// timeout.
var ErrTurnTimeout = errors.New("turn timed out")

// Provider is the part of an LLM client the agent needs. The providers
// module's Client implements it.
type Provider interface {
	Chat(ctx context.Context, req *providers.Request) (*providers.Response, error)
	ChatStream(ctx context.Context, req *providers.Request, onDelta func(providers.Delta)) (*providers.Response, error)
}

// Agent runs turns. It is safe for concurrent use: turns on different
// session keys run in parallel, turns on one key are serialized.
type Agent struct {
	provider      Provider
	providerName  string
	model         string
	tools         Tools
	sessions      Sessions
	workspace     string
	maxIterations int
	timeout       time.Duration
	historyLimit  int
	temperature   *float64
	maxTokens     int
	streaming     bool
	quietFallback bool
	// maxAnswerBytes is LimitOptions.MaxAnswerBytes with its default
	// applied.
	maxAnswerBytes int
	// maxRefused, maxMessageBytes, contextWindow and waitingNotice are
	// the options of the same names with their defaults applied;
	// maxRefused and waitingNotice are zero when turned off,
	// contextWindow when the model's own is used.
	maxRefused      int
	maxMessageBytes int
	contextWindow   int
	waitingNotice   time.Duration
	log             *slog.Logger
	now             func() time.Time
	files           fileCache
	names           SettingNames

	compactionThreshold int
	memory              LongTermMemory
	disableLearning     bool
	learnShared         bool
	learnTimeout        time.Duration
	learning            learnQueue
	bg                  sync.WaitGroup // background work after turns; see Wait
	// bgCtx parents the model requests of that work; bgAbort cancels them
	// (see Shutdown).
	bgCtx   context.Context
	bgAbort context.CancelFunc
	ext     extension
}

// New returns an Agent that asks provider for model and keeps its
// conversations in sessions (a *memory.Store, typically). opts may be nil.
func New(provider Provider, model string, sessions Sessions, opts *Options) (*Agent, error) {
	if provider == nil {
		return nil, errors.New("agent: New needs a provider")
	}
	if model == "" {
		return nil, errors.New("agent: New needs a model")
	}
	if s, ok := sessions.(*memory.Store); sessions == nil || ok && s == nil {
		return nil, errors.New("agent: New needs a session store")
	}
	if opts == nil {
		opts = &Options{}
	}
	if n := opts.Limits.MaxAnswerBytes; n < 0 || n > MaxAnswerBytesLimit {
		return nil, errorf("agent: LimitOptions.MaxAnswerBytes is %d: use 1 to %d, or 0 for the default of %d", n, MaxAnswerBytesLimit, DefaultMaxAnswerBytes)
	}
	if n := opts.Limits.MaxMessageBytes; n < 0 {
		return nil, errorf("agent: LimitOptions.MaxMessageBytes is %d: use a positive number, or 0 for the default of %d", n, DefaultMaxMessageBytes)
	}
	if n := opts.Requests.ContextWindow; n < 0 {
		return nil, errorf("agent: RequestOptions.ContextWindow is %d: use a positive number of tokens, or 0 for the model's known window", n)
	}
	a := &Agent{
		provider:        provider,
		providerName:    opts.Requests.ProviderName,
		model:           model,
		tools:           opts.Tools,
		sessions:        sessions,
		workspace:       opts.Workspace,
		maxIterations:   opts.Limits.MaxIterations,
		timeout:         opts.Limits.Timeout,
		historyLimit:    opts.Limits.HistoryLimit,
		temperature:     opts.Requests.Temperature,
		maxTokens:       opts.Requests.MaxTokens,
		streaming:       !opts.Requests.DisableStreaming,
		quietFallback:   opts.Requests.QuietFallback,
		maxAnswerBytes:  opts.Limits.MaxAnswerBytes,
		maxRefused:      opts.Limits.MaxRefusedRepeats,
		maxMessageBytes: opts.Limits.MaxMessageBytes,
		contextWindow:   opts.Requests.ContextWindow,
		waitingNotice:   opts.Requests.WaitingNotice,
		log:             opts.Logger,
		now:             opts.Now,
		names:           opts.SettingNames.withDefaults(),

		compactionThreshold: opts.Memory.CompactionThreshold,
		memory:              opts.Memory.LongTerm,
		disableLearning:     opts.Memory.DisableLearning,
		learnShared:         opts.Memory.LearnShared,
		learnTimeout:        opts.Memory.LearnTimeout,
	}
	if a.compactionThreshold == 0 {
		a.compactionThreshold = DefaultCompactionThreshold
	}
	if a.learnTimeout <= 0 {
		a.learnTimeout = DefaultLearnTimeout
	}
	if err := a.learning.init(a, &opts.Memory); err != nil {
		return nil, err
	}
	if a.maxAnswerBytes == 0 {
		a.maxAnswerBytes = DefaultMaxAnswerBytes
	}
	switch {
	case a.maxRefused == 0:
		a.maxRefused = DefaultMaxRefusedRepeats
	case a.maxRefused < 0:
		a.maxRefused = 0
	}
	if a.maxMessageBytes == 0 {
		a.maxMessageBytes = DefaultMaxMessageBytes
	}
	switch {
	case a.waitingNotice == 0:
		a.waitingNotice = DefaultWaitingNotice
	case a.waitingNotice < 0:
		a.waitingNotice = 0
	}
	if a.providerName == "" {
		a.providerName = "provider"
	}
	if a.maxIterations <= 0 {
		a.maxIterations = DefaultMaxIterations
	}
	if a.timeout <= 0 {
		a.timeout = DefaultTimeout
	}
	if a.historyLimit <= 0 {
		a.historyLimit = DefaultHistoryLimit
	}
	if a.log == nil {
		a.log = slog.Default()
	}
	if a.now == nil {
		a.now = time.Now
	}
	// A nil *tools.Registry or *memory.LongTerm in an interface field is
	// not a nil interface; it means none all the same.
	if r, ok := a.tools.(*tools.Registry); ok && r == nil {
		a.tools = nil
	}
	if l, ok := a.memory.(*memory.LongTerm); ok && l == nil {
		a.memory = nil
	}
	a.files.log = a.log
	a.bgCtx, a.bgAbort = context.WithCancel(context.Background())
	a.ext.init(opts, sessions)
	return a, nil
}

// Request is one inbound message for the agent.
type Request struct {
	// SessionKey selects the conversation, "channel:sender".
	SessionKey string
	// Text is the user's message.
	Text string
	// Channel and ChatID tell the model where the conversation happens;
	// both may be empty.
	Channel string
	ChatID  string
	// Images and Documents are attached to the user's message. They reach
	// the model with this turn only: the session stores a reference to
	// each (type, size, SHA-256), and later turns see a one-line note in
	// its place. Nil means none.
	Images    []providers.Image
	Documents []providers.Document
	// Untrusted, when not empty, names where Text came from when it is not
	// the user's own words: "webhook github/issues" for an outsider's
	// issue text, "cron job 7 (scheduled by the model)". The text reaches
	// the model fenced as untrusted data, and the turn starts tainted, so
	// every tool call that acts needs a human's approval (and is refused
	// where there is none to ask). Empty means the user wrote Text.
	Untrusted string
}

// Reply is the outcome of a turn.
type Reply struct {
	// Text is the answer to show the user. When Process also returns an
	// error, Text explains what happened in words fit for the user.
	Text string
	// Iterations is how many times the model was asked.
	Iterations int
	// ToolCalls is how many tool calls were executed.
	ToolCalls int
	// Usage sums the token usage the provider reported.
	Usage providers.Usage
	// Choices are the options a bare /model, /personality or /agent
	// offers, for a channel to render as buttons; nil for other replies.
	Choices []Choice
	// Notice is the fallback notice that opens Text when a fallback model
	// answered (see [StreamEvent] Notice); empty otherwise.
	Notice string
	// Interrupted is set when the model's stream broke after part of the
	// answer was shown: Text is that part, and the error is the one the
	// sink received as [StreamEvent] Err. Process returns no error then,
	// because the turn kept what arrived. It is also set when the turn
	// was stopped after part of the answer was shown: Text is that part,
	// Interrupted is the context's cause, and Process returns an error
	// wrapping [ErrStopped].
	Interrupted error
}

// Process runs one turn: it saves the user's message, runs the ReAct loop,
// and saves the exchange. On failure it returns a non-nil Reply whose Text
// tells the user what went wrong, together with the error: a provider
// failure (naming the provider), [ErrIterationLimit] (also
// [ErrRepeatedCalls]), [ErrTurnTimeout], [ErrStopped] or
// [ErrMessageTooLarge].
// When the answer arrived but the session could not be written, the Reply
// carries the answer and the error is a [*SaveError] (see [ErrNotSaved]).
// Otherwise, the session keeps the user's message and every step the
// loop completed, except for a request whose attachments are refused by
// their content or size: that one is answered without touching the session
// or the provider, and the error wraps [providers.ErrAttachment], as does
// the error of a turn whose model cannot read them.
func (a *Agent) Process(ctx context.Context, req Request) (*Reply, error) {
	if err := memory.ValidateKey(req.SessionKey); err != nil {
		return nil, errorf("agent: %w", err)
	}
	if reply, err := a.bigMessage(&req); err != nil {
		return reply, err
	}
	// Text that is not the user's own never runs a slash command: an
	// outsider's "/model …" or "/clear" is just more data.
	command := a.command
	if req.Untrusted != "" {
		command = func(context.Context, *Request) (*Reply, error, bool) { return nil, nil, false }
	}
	if reply, err, handled := command(ctx, &req); handled {
		if len(req.Images)+len(req.Documents) > 0 {
			a.log.Info("attachments not used: the message is a slash command", "session", req.SessionKey)
		}
		if sink := SinkFromContext(ctx); sink != nil && reply != nil {
			// A streaming client gets a command's answer the way it gets
			// every answer, so no surface needs a second path for it.
			sink(StreamEvent{Delta: reply.Text})
			sink(StreamEvent{Done: true})
		}
		return reply, err
	}
	refs, err := attachmentRefs(&req)
	if err != nil {
		return refusedAttachments(err), errorf("agent: %w", err)
	}
	// The turn lock is shared with every process on this sessions
	// directory (other CLI runs, a gateway, serve), and held from the
	// load to the final save, so no save of theirs or ours is written
	// from a stale load.
	unlock, err := a.sessions.Lock(ctx, req.SessionKey)
	if err != nil {
		return nil, errorf("agent: %w", err)
	}
	defer unlock()

	sess, err := a.sessions.Load(req.SessionKey)
	if err != nil {
		return nil, errorf("agent: load session %s: %w", req.SessionKey, err)
	}
	now := a.now()
	sess.Messages = append(sess.Messages, memory.Message{Role: providers.RoleUser, Content: inboundText(&req), Time: now, Attachments: refs})
	// A user message followed by another is a turn that was cut off (the
	// process killed before its answer was saved); the marker keeps the
	// session alternating and tells the model the question went unanswered.
	var marked int
	if sess.Messages, marked = memory.MarkInterrupted(sess.Messages); marked > 0 {
		a.log.Info("recorded cut-off turns as interrupted", "session", req.SessionKey, "turns", marked)
	}
	// The message must survive a failing provider or a killed process, so
	// it is written at once, but neither the disk nor even the write may
	// delay the first token: it is staged (written, not synced) from a
	// snapshot while the request goes out, and the turn waits for it
	// before anything else writes the session or any tool runs. The
	// durable save at the end of the turn covers a power cut.
	staged := a.stage(sess)

	setup, err := a.turnSetup(&req)
	if err != nil {
		return nil, errorf("agent: %w", err)
	}
	system, err := a.systemPrompt(&req, now)
	if err != nil {
		return nil, errorf("agent: build prompt: %w", err)
	}
	system += setup.prompt

	ctx, cancel := context.WithTimeoutCause(ctx, a.timeout, ErrTurnTimeout)
	defer cancel()
	ctx = a.turnContext(ctx, &req)
	ctx, taint := taintTurn(ctx, &req)
	ctx = context.WithValue(ctx, allowedKey{}, setup.allowed)
	a.maybeCompact(ctx, sess, staged)
	ctx = tools.WithSessionKey(ctx, req.SessionKey)
	from := len(sess.Messages)

	t := &turn{a: a, sess: sess, sink: SinkFromContext(ctx), images: req.Images, documents: req.Documents, staged: staged}
	setup.apply(t)
	reply, runErr := t.run(ctx, system)
	if t.sink != nil {
		t.sink(StreamEvent{Done: true})
	}
	if err := staged(); err != nil && runErr == nil {
		a.log.Warn("message not staged before the turn ended; the final save follows", "session", req.SessionKey, "err", err)
	}
	a.afterTurnHooks(ctx, &req, t, reply, runErr)
	if err := a.sessions.Save(sess); err != nil {
		a.log.Error("session not saved", "session", req.SessionKey, "err", err)
		if runErr == nil {
			runErr = &SaveError{Session: req.SessionKey, Err: err}
		}
	}
	if runErr == nil {
		a.afterTurn(req.SessionKey, req.Text, sess, from, reply, taint.Tainted())
	}
	return reply, runErr
}

// stage writes a snapshot of sess (not synced) in the background and
// returns a function that waits for the write and reports its error; it
// may be called any number of times. Messages are only ever appended to a
// session or the slice replaced, never changed in place, so a copy of the
// slice header is a consistent snapshot.
func (a *Agent) stage(sess *memory.Session) (wait func() error) {
	snap := *sess
	snap.Messages = slices.Clip(sess.Messages)
	done := make(chan error, 1)
	go func() { done <- a.sessions.Stage(&snap) }()
	return sync.OnceValue(func() error { return <-done })
}

// turn is the state of one Process call.
type turn struct {
	a    *Agent
	sess *memory.Session
	// staged waits for the background write of the user's message.
	staged func() error
	sink   Sink
	// rawSink is the caller's sink once sink is serialized with sinkMu
	// (see waitFor); nil before.
	rawSink Sink
	sinkMu  sync.Mutex
	// streamed is true once any text reached the sink this turn.
	streamed bool
	// model is the model asked this turn; empty means a.model.
	model string
	// maxIterations overrides a.maxIterations when positive.
	maxIterations int
	// allowed, when non-nil, limits the tools offered and run to its keys.
	allowed map[string]bool
	guard   loopGuard
	steps   stepLog
	// streamDied is set when a stream broke after text was shown.
	streamDied error
	// partial is the text shown of an answer whose request ended with the
	// turn's context (a stop, a timeout); it is kept as interrupted.
	partial string
	// providerFailed is set when the provider call ended the turn.
	providerFailed bool
	// notice is the first fallback notice of the turn, which opens the
	// reply; lastNotice keeps one notice from being shown twice.
	notice, lastNotice string
	// images and documents ride on the turn's user message (attach.go).
	images    []providers.Image
	documents []providers.Document
}

// fallback records a provider's fallback notice and shows it on the sink
// ahead of the answer it belongs to.
func (t *turn) fallback(n string) {
	if n == "" || t.a.quietFallback || n == t.lastNotice {
		return
	}
	t.lastNotice = n
	if t.notice == "" {
		t.notice = n
	}
	if t.sink != nil {
		t.sink(StreamEvent{Notice: n})
	}
}

func (t *turn) run(ctx context.Context, system string) (*Reply, error) {
	a := t.a
	reply := &Reply{}
	// The tool list is taken again before every request when the
	// registry changed, so a tool withdrawn mid-turn (a revoked MCP
	// server) is no longer offered, and one registered meanwhile is.
	var defs []providers.ToolDefinition
	var src []tools.Definition
	refreshTools := func() {
		if a.tools == nil {
			return
		}
		cur := a.tools.Definitions()
		if src != nil && len(cur) == len(src) && (len(cur) == 0 || &cur[0] == &src[0]) {
			return // the registry's cached list: nothing changed
		}
		src = cur
		defs = toProviderTools(t.filterDefs(ctx, cur))
	}
	model := a.model
	if t.model != "" {
		model = t.model
	}
	maxIterations := a.maxIterations
	if t.maxIterations > 0 {
		maxIterations = t.maxIterations
	}
	summary, history := splitSummary(t.sess.Messages)
	history = window(history, a.historyLimit)
	msgs := make([]providers.Message, 0, len(history)+8)
	msgs = append(msgs, providers.Message{Role: providers.RoleSystem, Content: system + summary})
	for i := range history {
		msgs = append(msgs, toProviderMessage(&history[i]))
	}
	if len(history) > 0 {
		t.currentAttachments(msgs, &history[len(history)-1])
	}

	for reply.Iterations < maxIterations {
		reply.Iterations++
		refreshTools()
		msgs = repairMessages(msgs, a.log)
		sent, dropped, clipped := fitWindow(msgs, a.windowBudget(model), toolTokens(defs))
		if dropped+clipped > 0 {
			a.log.Info("request shrunk to fit the model's context window", "session", t.sess.Key, "model", model,
				"budget_tokens", a.windowBudget(model), "messages_left_out", dropped, "messages_clipped", clipped)
		}
		req := &providers.Request{
			Model:       model,
			Messages:    sent,
			Tools:       defs,
			Temperature: a.temperature,
			MaxTokens:   a.maxTokens,
		}
		resp, err := t.ask(ctx, req)
		if err != nil {
			// A refused attachment is the message's problem, not an
			// incident of the provider.
			t.providerFailed = !errors.Is(err, providers.ErrAttachment)
			if t.partial != "" {
				// What the user saw stays in the conversation, marked as
				// cut off, so the session alternates and the model knows.
				t.sess.Messages = append(t.sess.Messages, memory.Message{Role: providers.RoleAssistant, Kind: memory.KindInterrupted, Content: t.partial, Time: a.now()})
			}
			return t.fail(ctx, reply, err)
		}
		addUsage(&reply.Usage, resp.Usage)
		msg := resp.Message
		msg.Role = providers.RoleAssistant
		if len(msg.ToolCalls) == 0 && msg.Content != "" {
			if calls := parseTextToolCalls(msg.Content, t.knownTool); calls != nil {
				msg.ToolCalls, msg.Content = calls, ""
			}
		}
		if len(msg.ToolCalls) > 0 && msg.Content != "" {
			t.steps.lastSay = msg.Content
		}
		for i := range msg.ToolCalls {
			// Some local models omit ids; the tool result must still pair
			// with its call or the next request is refused.
			if msg.ToolCalls[i].ID == "" {
				msg.ToolCalls[i].ID = fmt.Sprintf("call_%d_%d", reply.Iterations, i)
			}
		}
		if len(msg.ToolCalls) > 0 {
			// Text beside tool calls was streamed up to the cap; the
			// session keeps the same.
			msg.Content = answerCap(msg.Content, a.maxAnswerBytes)
		} else {
			if note := t.keepAnswer(&msg); note != "" && t.sink != nil {
				t.sink(StreamEvent{Delta: "\n\n" + note})
			}
		}
		msgs = append(msgs, msg)
		t.record(&msg)
		if len(msg.ToolCalls) == 0 {
			reply.Text = msg.Content
			if reply.Text == "" {
				reply.Text = "(The model returned an empty answer.)"
			}
			if t.notice != "" {
				reply.Notice = t.notice
				reply.Text = t.notice + "\n" + reply.Text
			}
			reply.Interrupted = t.streamDied
			return reply, nil
		}
		// A tool that needs time to get ready (the confined shell's
		// helper) starts while the message is saved and the call checked.
		t.prepare(msg.ToolCalls)
		// Tools act on the world: none runs unless the message that led
		// to it is on disk.
		if err := t.waitStaged(); err != nil {
			t.skip(msg.ToolCalls, "the session could not be saved")
			reply.Text = "Error: your message could not be saved, so no tool was run: " + oneLine(err.Error())
			return reply, errorf("agent: save session %s: %w", t.sess.Key, err)
		}
		for i := range msg.ToolCalls {
			call := &msg.ToolCalls[i]
			if ctx.Err() != nil {
				t.skip(msg.ToolCalls[i:], "the turn ended before it ran")
				return t.fail(ctx, reply, ctx.Err())
			}
			t.progress(&ToolProgress{Name: call.Function.Name, CallID: call.ID, Arguments: call.Function.Arguments})
			out := t.guard.check(call.Function.Name, call.Function.Arguments)
			refused := out != ""
			failed := refused
			if !refused {
				out, failed = t.execute(ctx, call)
			}
			t.progress(&ToolProgress{Name: call.Function.Name, CallID: call.ID, Finished: true, Failed: failed})
			t.steps.add(call.Function.Name, refused)
			reply.ToolCalls++
			res := providers.Message{Role: providers.RoleTool, ToolCallID: call.ID, Name: call.Function.Name, Content: out}
			msgs = append(msgs, res)
			t.record(&res)
		}
		if a.maxRefused > 0 && t.steps.refused >= a.maxRefused {
			return t.stopRepeats(reply)
		}
	}
	reply.Text = fmt.Sprintf("I stopped after %d steps without finishing, the limit set by %s. "+
		"I ran %d tool calls; what I did so far is saved. %s Ask me to continue, or raise the limit.", reply.Iterations, a.names.MaxIterations, reply.ToolCalls, t.steps.summary())
	return reply, errorf("agent: %w (%d, %s)", ErrIterationLimit, maxIterations, a.names.MaxIterations)
}

// fail turns an error that ended the turn into the reply the user sees.
func (t *turn) fail(ctx context.Context, reply *Reply, err error) (*Reply, error) {
	if errors.Is(context.Cause(ctx), ErrTurnTimeout) {
		reply.Text = fmt.Sprintf("I ran out of time after %s (%s) with %d steps and %d tool calls done; what I did so far is saved.",
			t.a.timeout, t.a.names.Timeout, reply.Iterations, reply.ToolCalls)
		return reply, errorf("agent: %w after %s (%s)", ErrTurnTimeout, t.a.timeout, t.a.names.Timeout)
	}
	if ctx.Err() != nil {
		reply.Text = "Stopped."
		if t.partial != "" {
			reply.Text, reply.Interrupted = t.partial, context.Cause(ctx)
		}
		return reply, errorf("agent: %w: %w", ErrStopped, ctx.Err())
	}
	if errors.Is(err, providers.ErrAttachment) {
		reply.Text = t.attachmentRefusal(err)
		return reply, errorf("agent: %w", err)
	}
	reply.Text = "Error: " + oneLine(err.Error())
	return reply, errorf("agent: %w", err)
}

// ask sends one request, streaming when a sink is attached.
func (t *turn) ask(ctx context.Context, req *providers.Request) (*providers.Response, error) {
	if t.sink == nil || !t.a.streaming {
		started := t.waitFor()
		resp, err := t.a.provider.Chat(ctx, req)
		started()
		if err == nil {
			t.fallback(resp.FallbackNotice)
		}
		if err == nil && t.sink != nil && resp.Message.Content != "" && !t.isTextCall(resp) {
			t.sink(StreamEvent{Delta: answerCap(resp.Message.Content, t.a.maxAnswerBytes)})
		}
		return resp, err
	}
	delivered := false
	shown := 0
	var text strings.Builder // what this request showed
	if t.streamed {
		// Keep answers from consecutive iterations apart on screen.
		t.sink(StreamEvent{Delta: "\n\n"})
	}
	hold := &textHold{emit: func(s string) {
		delivered = true
		t.streamed = true
		if s = t.capStream(s, &shown); s != "" {
			text.WriteString(s)
			t.sink(StreamEvent{Delta: s})
		}
	}}
	started := t.waitFor()
	resp, err := t.a.provider.ChatStream(ctx, req, func(d providers.Delta) {
		if d.Notice != "" || d.Content != "" {
			started()
		}
		t.fallback(d.Notice)
		if d.Content != "" {
			hold.feed(d.Content)
		}
	})
	started()
	if err == nil {
		t.fallback(resp.FallbackNotice)
		hold.finish(t.isTextCall(resp))
		return resp, nil
	}
	// A provider chain has already retried a dead stream through its
	// non-streaming path, fallbacks included; asking again would repeat
	// that whole sequence. Nor is a refused attachment worth a second
	// try: it was refused before anything was sent.
	if !delivered && ctx.Err() == nil && !errors.Is(err, providers.ErrAllFailed) && !errors.Is(err, providers.ErrAttachment) && !firstByteTimeout(err) {
		// Nothing reached the screen, so a plain request can redo the
		// answer invisibly.
		t.a.log.Warn("stream failed before any text; retrying without streaming", "provider", t.a.providerName, "err", err)
		started := t.waitFor()
		resp, err = t.a.provider.Chat(ctx, req)
		started()
		if err == nil {
			t.fallback(resp.FallbackNotice)
		}
		if err == nil && resp.Message.Content != "" && !t.isTextCall(resp) {
			t.streamed = true
			t.sink(StreamEvent{Delta: answerCap(resp.Message.Content, t.a.maxAnswerBytes)})
		}
		return resp, err
	}
	if delivered && resp != nil && ctx.Err() == nil {
		// Text already shown cannot be taken back; report the break and
		// keep what arrived as the answer.
		t.streamDied = err
		t.sink(StreamEvent{Err: err})
		resp.Message.ToolCalls = nil
		return resp, nil
	}
	if delivered && ctx.Err() != nil {
		t.partial = text.String()
	}
	return nil, err
}

// execute runs one tool call and returns the text the model sees, and
// whether the call failed. Every failure, including a panicking tool,
// becomes an error text the model can act on.
func (t *turn) execute(ctx context.Context, call *providers.ToolCall) (out string, failed bool) {
	name := call.Function.Name
	if t.a.tools == nil {
		return fmt.Sprintf("Error: no tools are available; %q cannot be called.", name), true
	}
	if t.allowed != nil && !t.allowed[name] {
		return fmt.Sprintf("Error: tool %q is not available to this agent profile.", name), true
	}
	defer func() {
		if r := recover(); r != nil {
			t.a.log.Error("tool panicked", "tool", name, "panic", r)
			out, failed = fmt.Sprintf("Error: tool %s failed internally: %v", name, r), true
		}
	}()
	if t.sink != nil {
		// A tool may note from a goroutine of its own: notes take the
		// sink's lock, and none passes once the call has returned, so a
		// note never follows its call's end event.
		t.serializeSink()
		var mu sync.Mutex
		ended := false
		defer func() { mu.Lock(); ended = true; mu.Unlock() }()
		ctx = tools.WithNotes(ctx, func(text string) {
			mu.Lock()
			defer mu.Unlock()
			if !ended {
				t.progress(&ToolProgress{Name: name, CallID: call.ID, Note: oneLine(text)})
			}
		})
	}
	start := time.Now()
	res, err := t.a.tools.Execute(ctx, name, json.RawMessage(call.Function.Arguments))
	t.noteRefusal(name, err)
	if err != nil {
		t.a.log.Debug("tool error", "tool", name, "dur", time.Since(start), "err", err)
		return "Error: " + err.Error(), true
	}
	return res, false
}

// prepare lets each tool the calls name get ready ([tools.Preparer]).
func (t *turn) prepare(calls []providers.ToolCall) {
	if t.a.tools == nil {
		return
	}
	for i := range calls {
		if t.allowed != nil && !t.allowed[calls[i].Function.Name] {
			continue
		}
		if tl, ok := t.a.tools.Get(calls[i].Function.Name); ok {
			if p, ok := tl.(tools.Preparer); ok {
				p.Prepare()
			}
		}
	}
}

// progress reports a tool call's start or end to the sink, if any.
func (t *turn) progress(p *ToolProgress) {
	if t.sink != nil {
		t.sink(StreamEvent{Tool: p})
	}
}

// skip answers calls that will not run, so the stored session never holds
// a tool call without its result (which providers refuse with a 400).
func (t *turn) skip(calls []providers.ToolCall, why string) {
	for i := range calls {
		res := providers.Message{Role: providers.RoleTool, ToolCallID: calls[i].ID, Name: calls[i].Function.Name, Content: "Error: not run: " + why}
		t.record(&res)
	}
}

// waitStaged waits for the background write of the turn's user message,
// when there is one.
func (t *turn) waitStaged() error {
	if t.staged == nil {
		return nil
	}
	return t.staged()
}

// record appends m to the session.
func (t *turn) record(m *providers.Message) {
	t.sess.Messages = append(t.sess.Messages, toMemoryMessage(m, t.a.now()))
}

func addUsage(sum *providers.Usage, u providers.Usage) {
	sum.PromptTokens += u.PromptTokens
	sum.CompletionTokens += u.CompletionTokens
	sum.TotalTokens += u.TotalTokens
}
