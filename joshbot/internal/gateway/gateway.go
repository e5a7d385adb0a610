package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/bus"
	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
	"github.com/joshbot/joshbot/sandbox"
)

// Options configure [New]. A nil *Options means the defaults.
type Options struct {
	// Grace is how long turns in flight, and then the learning and
	// compaction after them, may run once ctx ends; zero means none.
	Grace time.Duration
	// Channels are run beside the ones the config enables; tests use it
	// to run the gateway against a fake platform.
	Channels []channels.Channel
}

// Gateway runs the chat channels the config enables against one runtime:
// the router (allowlists, dedup, durable inbox), a turn per accepted
// message, approvals in the chat, and delivery of replies and of the
// message tools' output.
type Gateway struct {
	rt    *runtime.Runtime
	log   *slog.Logger
	grace time.Duration
	extra []channels.Channel
	// approvals remembers the sessions whose human chose "allow for
	// session" on a live channel, until the gateway stops.
	approvals sync.Map
	// unsaved holds the conversations already told that their answers are
	// not being saved, until a turn there saves again.
	unsaved sync.Map
}

// New returns a gateway over rt, which should be loaded with
// [runtime.ProgressTools] as its WrapTools so a live channel can show
// what a turn's tools are doing.
func New(rt *runtime.Runtime, o *Options) *Gateway {
	if o == nil {
		o = &Options{}
	}
	return &Gateway{rt: rt, log: rt.Logger, grace: o.Grace, extra: o.Channels}
}

// Run wires router, bus, agent and channels, and runs until ctx ends;
// then it drains for the grace period. It keeps the provider health file
// while it runs.
func (g *Gateway) Run(ctx context.Context) error {
	rt, grace := g.rt, g.grace
	defer rt.StartHealthFile(ctx)()
	var stopAt atomic.Pointer[time.Time]
	noted := make(chan struct{})
	unnote := context.AfterFunc(ctx, func() {
		defer close(noted)
		now := time.Now()
		stopAt.Store(&now)
		g.log.Info("stopping: work in flight gets the grace period; a second signal stops at once", "grace", grace)
	})
	// Nothing is logged after gateway returns.
	defer func() {
		if !unnote() {
			<-noted
		}
	}()
	chans, err := g.enabledChannels(rt)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(chans))
	for _, ch := range chans {
		names = append(names, ch.Name())
	}
	allowFrom, respondAll := routerPolicy(rt.Config)
	router, err := channels.NewRouter(&channels.RouterOptions{
		Dir:          filepath.Join(rt.Home, "gateway"),
		Channels:     chatNames(names),
		AllowFrom:    allowFrom,
		RespondToAll: respondAll,
		Grace:        grace,
		Logger:       g.log,
		SpoolDir:     gatewaySpoolDir(rt.Home),
		AllowFromSetting: func(ch string) string {
			return "channels." + ch + ".allow_from"
		},
	})
	if err != nil {
		return err
	}
	defer router.Close()
	for _, w := range router.Warnings() {
		g.log.Warn(w)
	}
	if len(chans) == 0 {
		g.log.Warn("no channel is enabled: set channels.telegram.enabled (or channels.discord, channels.slack, webhooks.listen) in the config")
	}

	b := bus.New(nil)
	var wg sync.WaitGroup
	for _, ch := range chans {
		out := b.OutboundChannel(ch.Name())
		wg.Add(2)
		go func() {
			defer wg.Done()
			deliverOutbound(ctx, g, ch, out)
		}()
		go func() {
			defer wg.Done()
			if err := ch.Start(ctx, router); err != nil && !errors.Is(err, context.Canceled) {
				g.log.Error("channel stopped", "channel", ch.Name(), "err", channelStartError(err))
			}
		}()
	}
	g.log.Info("gateway running", "channels", names)
	idle := rt.Idler()
	go idle.Run(ctx)
	go g.sweepSpool(ctx, router)

	byName := map[string]channels.Channel{}
	for _, ch := range chans {
		byName[ch.Name()] = ch
	}
	// reply sends before it returns, never through the bus: the router
	// removes a message's inbox record when its handler returns, so a
	// reply (or restart notice) still queued when the process dies would
	// be lost without a trace. Replies still go out while the gateway
	// drains after a stop, as deliverOutbound's do.
	reply := func(ctx context.Context, inb channels.Inbound, text string) {
		ch, ok := byName[inb.Channel]
		if !ok {
			g.log.Error("reply not delivered: no such channel", "channel", inb.Channel)
			return
		}
		sendCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		if err := ch.Send(sendCtx, inb.Conversation, channels.Outbound{Text: text, ReplyTo: inb.MessageID}); err != nil {
			g.log.Error("reply not delivered", "channel", inb.Channel, "chat", inb.Conversation, "err", err)
		}
	}
	record, stopHooks := g.gatewayHooks(ctx, rt, b)
	g.publishMenus(ctx, chans)
	handle := func(ctx context.Context, inb channels.Inbound) {
		defer idle.Busy()()
		record(inb.Channel, inb.Conversation)
		req := agent.Request{
			SessionKey: inb.Channel + ":" + inb.Principal,
			Text:       inb.Text,
			Channel:    inb.Channel,
			ChatID:     inb.Conversation,
		}
		if inb.Trusted {
			// A webhook route is one conversation, whoever triggered it.
			req.SessionKey = inb.Channel + ":" + inb.Conversation
			// Its text is an outsider's (an issue, a comment): the agent
			// fences it and the turn may not act without a human.
			req.Untrusted = "webhook " + inb.Channel + "/" + inb.Conversation + " from " + inb.Principal
			g.profileTurn(ctx, rt, inb, req)
		}
		if refusal := g.attachInbound(&req, gatewaySpoolDir(rt.Home), &inb); refusal != "" {
			reply(ctx, inb, refusal)
			return
		}
		ch := byName[inb.Channel]
		if st, ok := ch.(channels.Streamer); ok {
			g.liveTurn(ctx, rt, ch, st, inb, req)
			return
		}
		if ty, ok := ch.(channels.TypingIndicator); ok {
			defer ty.Typing(ctx, inb.Conversation)()
		}
		res, err := rt.Agent.Process(g.withApprover(ctx, ch, inb, req), req)
		if err != nil {
			g.log.Warn("turn failed", "channel", inb.Channel, "err", err)
		}
		if res != nil && res.Text != "" {
			reply(ctx, inb, res.Text+g.saveNotice(inb, err))
		}
		g.offerChoices(ctx, ch, inb, res)
	}
	mended := g.finishCutOff(ctx, byName)
	interrupted := func(ctx context.Context, inb channels.Inbound) {
		reply(ctx, inb, "I was restarted while working on your last message, so I may not have finished it. Please send it again if you still need it.")
	}
	err = router.Run(ctx, handle, interrupted)
	mended()
	stopHooks()
	b.Close()
	wg.Wait()
	// Learning, bookkeeping and compaction that run after a reply get what
	// is left of the grace period.
	end := time.Now().Add(grace)
	if t := stopAt.Load(); t != nil {
		end = t.Add(grace)
	}
	drain, cancel := context.WithDeadline(context.Background(), end)
	defer cancel()
	rt.Drain(drain)
	if errors.Is(err, context.Canceled) {
		g.log.Info("gateway stopped")
		return nil
	}
	return err
}

// deliverOutbound sends the replies addressed to ch until the bus closes.
func deliverOutbound(ctx context.Context, g *Gateway, ch channels.Channel, out <-chan bus.Outbound) {
	for m := range out {
		if m.Channel != ch.Name() {
			continue
		}
		// Replies still go out while the gateway drains after a stop.
		sendCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		if err := ch.Send(sendCtx, m.ChatID, channels.Outbound{Text: m.Text, ReplyTo: m.ReplyTo, Files: m.Attachments}); err != nil {
			g.log.Error("reply not delivered", "channel", ch.Name(), "chat", m.ChatID, "err", err)
		}
		cancel()
	}
}

// withApprover returns ctx with an approver that asks in the turn's own
// chat, when shell approval is on and ch can ask (a
// [channels.ApprovalPrompter]); otherwise ctx, where a command that needs
// approval is refused.
func (g *Gateway) withApprover(ctx context.Context, ch channels.Channel, inb channels.Inbound, req agent.Request) context.Context {
	mode := g.rt.Config.Tools.ShellApproval
	ap, ok := ch.(channels.ApprovalPrompter)
	if !ok || mode == "" || mode == "off" {
		return ctx
	}
	return sandbox.WithApprover(ctx, g.chatApprover(ap, inb, req.SessionKey))
}

// chatApprover asks the human in the turn's own chat, with buttons bound to
// that chat and this request, to approve each shell command. The turn's
// timeout bounds the wait; no answer is a denial.
func (g *Gateway) chatApprover(ch channels.ApprovalPrompter, inb channels.Inbound, session string) sandbox.Approver {
	var n atomic.Int64
	return sandbox.ApproverFunc(func(ctx context.Context, req *sandbox.ApprovalRequest) (sandbox.Decision, error) {
		if req.SessionAllowed {
			if _, ok := g.approvals.Load(session); ok {
				return sandbox.Allow, nil
			}
		}
		where := "unconfined"
		if req.Confined {
			where = "in the sandbox"
		}
		prompt := fmt.Sprintf("Run this command (%s)?\n\n```\n%s\n```\nin %s", where, req.Command, req.Dir)
		if req.Tool != "" && req.Tool != "shell" {
			prompt = fmt.Sprintf("Allow the %s tool to do this?\n\n```\n%s\n```", req.Tool, req.Command)
		}
		if req.Reason != "" {
			prompt += "\n\nAsked because " + req.Reason + "."
		}
		id := fmt.Sprintf("%s-%d", inb.MessageID, n.Add(1))
		d, err := ch.Approve(ctx, inb.Conversation, id, prompt, req.SessionAllowed)
		switch d {
		case channels.DecisionAllowSession:
			if req.SessionAllowed {
				g.approvals.Store(session, true)
				return sandbox.AllowSession, err
			}
			return sandbox.Allow, err
		case channels.DecisionAllow:
			return sandbox.Allow, err
		}
		return sandbox.Deny, err
	})
}

// liveTurn runs one turn on a channel that streams: the answer streams
// into one message that Finish turns into the final reply, so nothing goes
// through the bus and nothing is sent twice. A typing indicator shows
// while it runs where ch has one.
func (g *Gateway) liveTurn(ctx context.Context, rt *runtime.Runtime, ch channels.Channel, st channels.Streamer, inb channels.Inbound, req agent.Request) {
	if ty, ok := ch.(channels.TypingIndicator); ok {
		defer ty.Typing(ctx, inb.Conversation)()
	}
	turnCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := st.StartStream(ctx, inb.Conversation, &channels.StreamOptions{ReplyTo: inb.MessageID, Cancel: cancel})
	if err != nil {
		g.log.Error("reply stream not started", "channel", inb.Channel, "err", err)
		return
	}
	live := g.trackLive(ch, stream, inb)
	turnCtx = runtime.WithProgress(turnCtx, func(tool, detail string) {
		line := "⚙️ " + tool
		if detail != "" {
			line += ": " + detail
		}
		stream.Status(line)
	})
	turnCtx = g.withApprover(turnCtx, ch, inb, req)
	var text strings.Builder
	streaming := rt.Config.Agents.Defaults.Streaming
	waiting := false // a waiting status line is shown
	// The sink is there even when answers do not stream: a running tool's
	// notes and the wait for the model take the status line.
	turnCtx = agent.WithSink(turnCtx, func(ev agent.StreamEvent) {
		if ev.Tool != nil && ev.Tool.Note != "" {
			stream.Status("⏳ " + ev.Tool.Name + ": " + ev.Tool.Note)
			return
		}
		if ev.Waiting > 0 {
			// The typing indicator runs all along; the status says why
			// nothing is written yet.
			stream.Status(fmt.Sprintf("⏳ waiting for the model (%ds)", int(ev.Waiting.Round(time.Second)/time.Second)))
			waiting = true
			return
		}
		if waiting {
			stream.Status("")
			waiting = false
		}
		if streaming {
			switch {
			case ev.Notice != "":
				text.WriteString(ev.Notice + "\n")
			case ev.Delta != "":
				text.WriteString(ev.Delta)
			default:
				return
			}
			stream.Update(text.String())
		}
	})
	res, err := rt.Agent.Process(turnCtx, req)
	final := ""
	switch {
	case errors.Is(err, context.Canceled) && ctx.Err() == nil:
		// The Stop button: keep what was already written.
		final = strings.TrimSpace(text.String() + "\n\n⏹ Stopped.")
	case res != nil:
		final = res.Text
		if res.Interrupted != nil {
			final += "\n\n⚠️ The answer was cut off: " + res.Interrupted.Error()
		}
		final += g.saveNotice(inb, err)
	}
	if err != nil {
		g.log.Warn("turn failed", "channel", inb.Channel, "err", err)
	}
	if err := stream.Finish(ctx, final); err != nil {
		g.log.Error("reply not delivered", "channel", inb.Channel, "chat", inb.Conversation, "err", err)
	}
	live.finish()
	g.offerChoices(ctx, ch, inb, res)
}

// saveNotice returns the warning a turn's answer ends with when err says
// the answer was delivered but not saved ([agent.ErrNotSaved]): once per
// conversation, until a turn there saves again, so a full disk is told
// once rather than on every message. The turn itself is settled like any
// other (its inbox record is removed), never run again. It returns "" in
// every other case, and a nil err (a turn that saved) re-arms the notice.
func (g *Gateway) saveNotice(inb channels.Inbound, err error) string {
	key := inb.Channel + "\x00" + inb.Conversation
	var se *agent.SaveError
	if !errors.As(err, &se) {
		if err == nil {
			g.unsaved.Delete(key)
		}
		return ""
	}
	if _, told := g.unsaved.LoadOrStore(key, true); told {
		return ""
	}
	if se.DiskFull() {
		return "\n\n⚠️ Not saved: the disk is full, so I will not remember this exchange. Free some disk space on the machine joshbot runs on; I will not say this again until saving works."
	}
	return "\n\n⚠️ Not saved: the conversation could not be written, so I will not remember this exchange (the gateway log says why); I will not say this again until saving works."
}

// profileTurn selects inb.Agent for the turn's session with the agent's own
// /agent command, so a trusted delivery runs under the profile its route
// names. Only Trusted inbounds carry Agent (the router clears it on the
// rest).
func (g *Gateway) profileTurn(ctx context.Context, rt *runtime.Runtime, inb channels.Inbound, req agent.Request) {
	if !inb.Trusted || inb.Agent == "" {
		return
	}
	sel := req
	sel.Text = "/agent " + inb.Agent
	sel.Untrusted = "" // joshbot's own command, from the route's config
	if _, err := rt.Agent.Process(ctx, sel); err != nil {
		g.log.Error("agent profile not selected for a webhook delivery", "agent", inb.Agent, "err", err)
	}
}
