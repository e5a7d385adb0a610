// Package agent runs joshbot's ReAct loop: it assembles the system prompt,
// asks the model, runs the tools the model calls, feeds their results back,
// and repeats until the model answers or a limit is reached.
//
// # Quick start
//
//	// client: anything with Chat and ChatStream (a providers.Client or
//	// Chain); store: a *memory.Store, or anything that is a [Sessions].
//	a, err := agent.New(client, "openai/gpt-4o-mini", store, &agent.Options{
//		Tools:     registry, // a *tools.Registry, or anything that is [Tools]
//		Workspace: "/home/me/.joshbot/workspace",
//		Limits:    agent.LimitOptions{MaxIterations: 20},
//	})
//	reply, err := a.Process(ctx, agent.Request{SessionKey: "cli:me", Text: "hello"})
//
// # Turns
//
// One call to [Agent.Process] is one turn. Turns on the same session key are
// serialized; turns on different keys run concurrently. The user's message
// is saved before the model is asked, so a failing provider never loses it,
// and whatever the loop achieved is saved however the turn ends.
//
// # Limits
//
// A turn is bounded by an iteration limit ([ErrIterationLimit]) and a wall
// clock timeout ([ErrTurnTimeout]). Either ends the turn with a message that
// names the limit and the setting that raises it: the [LimitOptions] field,
// or the name a program gives it in [Options].SettingNames.
//
// A message longer than [LimitOptions].MaxMessageBytes is kept whole in a
// file under the workspace's [InboxDir] and the session gets a reference
// to it ([ErrMessageTooLarge] without a workspace). No request is built
// larger than the model's context window ([RequestOptions].ContextWindow)
// less the room for the answer: older history is left out of the request,
// then the longest contents are clipped, while the session keeps them.
//
// # Memory
//
// A session that grows past [MemoryOptions].CompactionThreshold is compacted: its
// older part is summarized by the model, the summary is stored as the
// session's first record and the replaced messages go to the session's
// history archive (see the memory module). This normally happens in the
// background after the reply that took the session over, holding the
// session's turn lock, so no one waits for the summary before a first
// token unless they send the next message while it runs; a session still
// over the threshold when a turn starts is compacted before that turn's
// request. Before every request the message list is checked so that each
// tool call is answered exactly once, which keeps a damaged session from
// failing every turn. After a successful reply, a background step writes
// the turn to HISTORY.md and asks the model for durable facts;
// [Agent.Wait] waits for it and for a background compaction, and
// [Agent.Shutdown] does so with a bound, abandoning the model requests that
// outlast it.
//
// # Streaming
//
// When a [Sink] is attached to the context with [WithSink], the model is
// asked to stream and every text delta reaches the sink as it arrives, as
// a [StreamEvent]. A fallback notice, each tool call's start and end, and
// a stream that broke after text was shown arrive as events of their own
// kind, so no sink has to read the text to learn what happened. While the
// model has not started answering, Waiting events say for how long, so a
// surface can show a spinner or a typing status. When the turn's context
// is cancelled after text was shown, the session keeps that text as an
// interrupted answer (memory.KindInterrupted), [Agent.Process] returns it
// with [ErrStopped], and later turns tell the model it was cut off.
// Without a sink the turn is byte-identical to the non-streaming path.
//
// # Attachments
//
// [Request.Images] and [Request.Documents] go to the model on the user
// message of their own turn and nowhere else. They are checked by their
// bytes and the providers size limits before anything is stored; the
// session keeps a memory.AttachmentRef per file, and later turns see a
// short note in place of each. A model that cannot read them is refused by
// the provider before any network call, and the reply says which models
// were tried and which setting to change.
//
// # Commands, preferences and profiles
//
// A message shaped like a slash command is answered from the table in
// agent/commands without asking the model, and is not stored in the
// transcript. /model, /personality and /agent choices are per session,
// kept through [SessionPrefs]; a bare command returns its options as
// [Choice] values a channel can render as buttons.
//
// # Loop safety
//
// A tool called with the same arguments more than [LimitOptions].RepeatLimit
// times in a row is refused with an explanation the model can act on, and
// a turn that reaches its iteration limit ends with a summary of the tools
// it used. A model that ignores [LimitOptions].MaxRefusedRepeats refusals
// in one turn is not asked again: the turn ends with the same summary and
// [ErrRepeatedCalls]. Tool calls a local model writes as JSON text are executed.
//
// # Subagents and incidents
//
// An Agent is a tools.Spawner: the subagent tools find it on the turn's
// context and run a task in a fresh, bounded conversation that keeps the
// caller's approver and tool restriction. Turn timeouts, provider failures
// and broken streams are reported to an [IncidentRecorder]; [IncidentLog]
// keeps them in a JSONL file.
package agent
