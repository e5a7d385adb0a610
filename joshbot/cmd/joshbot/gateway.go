package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/apiserver"
	"github.com/joshbot/joshbot/bus"
	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/channels/telegram"
	"github.com/joshbot/joshbot/sandbox"
)

func (a *app) gatewayCommand() *cobra.Command {
	var grace time.Duration
	cmd := &cobra.Command{
		Use:   "gateway",
		Short: "Run the chat channels (Telegram, ...) until stopped",
		Long: "gateway starts every enabled channel, accepts messages from the senders in each\n" +
			"channel's allow_from, and answers them with the agent. Accepted messages are kept in a\n" +
			"durable inbox until answered, so a restart loses none. SIGINT or SIGTERM stop it\n" +
			"gracefully: turns in flight, then the learning and compaction that follow them, get\n" +
			"--grace to finish; a second signal stops it at once.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			// Once stopping, a second signal stops the process at once.
			context.AfterFunc(ctx, stop)
			return a.gateway(ctx, grace)
		},
	}
	cmd.Flags().DurationVar(&grace, "grace", 30*time.Second, "how long turns in flight may finish after a stop signal")
	a.addProfileFlag(cmd)
	return cmd
}

// gateway wires router, bus, agent and channels, and runs until ctx ends.
func (a *app) gateway(ctx context.Context, grace time.Duration) error {
	a.lenientConfig = true
	// Tools report what they are doing, so a live channel can show a
	// status line while the turn works.
	a.wrapTools = progressTools
	rt, err := a.loadRuntime()
	if err != nil {
		return err
	}
	defer rt.Close()
	defer a.startHealthFile(ctx, rt.home)()
	var stopAt atomic.Pointer[time.Time]
	noted := make(chan struct{})
	unnote := context.AfterFunc(ctx, func() {
		defer close(noted)
		now := time.Now()
		stopAt.Store(&now)
		a.log.Info("stopping: work in flight gets the grace period; a second signal stops at once", "grace", grace)
	})
	// Nothing is logged after gateway returns.
	defer func() {
		if !unnote() {
			<-noted
		}
	}()
	chans, err := a.enabledChannels(rt)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(chans))
	for _, ch := range chans {
		names = append(names, ch.Name())
	}
	allowFrom, respondAll := routerPolicy(rt.cfg)
	router, err := channels.NewRouter(&channels.RouterOptions{
		Dir:          filepath.Join(rt.home, "gateway"),
		Channels:     chatNames(names),
		AllowFrom:    allowFrom,
		RespondToAll: respondAll,
		Grace:        grace,
		Logger:       a.log,
		AllowFromSetting: func(ch string) string {
			return "channels." + ch + ".allow_from"
		},
	})
	if err != nil {
		return err
	}
	defer router.Close()
	for _, w := range router.Warnings() {
		a.log.Warn(w)
	}
	if len(chans) == 0 {
		a.log.Warn("no channel is enabled: set channels.telegram.enabled (or channels.discord, channels.slack, webhooks.listen) in the config")
	}

	b := bus.New(nil)
	var wg sync.WaitGroup
	for _, ch := range chans {
		out := b.OutboundChannel(ch.Name())
		wg.Add(2)
		go func() {
			defer wg.Done()
			deliverOutbound(ctx, a, ch, out)
		}()
		go func() {
			defer wg.Done()
			if err := ch.Start(ctx, router); err != nil && !errors.Is(err, context.Canceled) {
				a.log.Error("channel stopped", "channel", ch.Name(), "err", channelStartError(err))
			}
		}()
	}
	a.log.Info("gateway running", "channels", names)
	idle := a.idler()
	go idle.Run(ctx)
	go a.sweepSpool(ctx, gatewaySpoolDir(rt.home))

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
			a.log.Error("reply not delivered: no such channel", "channel", inb.Channel)
			return
		}
		sendCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		if err := ch.Send(sendCtx, inb.Conversation, channels.Outbound{Text: text, ReplyTo: inb.MessageID}); err != nil {
			a.log.Error("reply not delivered", "channel", inb.Channel, "chat", inb.Conversation, "err", err)
		}
	}
	record, stopHooks := a.gatewayHooks(ctx, rt, b)
	a.publishMenus(ctx, chans)
	a.publishDiscordMenus(ctx, chans)
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
			a.profileTurn(ctx, rt, inb, req)
		}
		if refusal := a.attachInbound(&req, gatewaySpoolDir(rt.home), &inb); refusal != "" {
			reply(ctx, inb, refusal)
			return
		}
		if live, ok := byName[inb.Channel].(liveChannel); ok {
			a.liveTurn(ctx, rt, live, inb, req)
			return
		}
		if ty, ok := byName[inb.Channel].(typingChannel); ok {
			stop := ty.Typing(ctx, inb.Conversation)
			res, err := rt.agent.Process(ctx, req)
			stop()
			if err != nil {
				a.log.Warn("turn failed", "channel", inb.Channel, "err", err)
			}
			if res != nil && res.Text != "" {
				reply(ctx, inb, res.Text)
			}
			a.offerChoices(ctx, byName[inb.Channel], inb, res)
			return
		}
		res, err := rt.agent.Process(ctx, req)
		if err != nil {
			a.log.Warn("turn failed", "channel", inb.Channel, "err", err)
		}
		if res != nil && res.Text != "" {
			reply(ctx, inb, res.Text)
		}
		a.offerChoices(ctx, byName[inb.Channel], inb, res)
	}
	interrupted := func(ctx context.Context, inb channels.Inbound) {
		reply(ctx, inb, "I was restarted while working on your last message, so I may not have finished it. Please send it again if you still need it.")
	}
	err = router.Run(ctx, handle, interrupted)
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
	a.drainAgent(drain, rt.agent)
	if errors.Is(err, context.Canceled) {
		a.log.Info("gateway stopped")
		return nil
	}
	return err
}

// deliverOutbound sends the replies addressed to ch until the bus closes.
func deliverOutbound(ctx context.Context, a *app, ch channels.Channel, out <-chan bus.Outbound) {
	for m := range out {
		if m.Channel != ch.Name() {
			continue
		}
		// Replies still go out while the gateway drains after a stop.
		sendCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		if err := ch.Send(sendCtx, m.ChatID, channels.Outbound{Text: m.Text, ReplyTo: m.ReplyTo, Files: m.Attachments}); err != nil {
			a.log.Error("reply not delivered", "channel", ch.Name(), "chat", m.ChatID, "err", err)
		}
		cancel()
	}
}

// liveChannel is a channel that can show a turn while it happens: a
// typing indicator, a reply that grows as the model writes it with a Stop
// button wired to the turn, and buttons to approve a shell command.
type liveChannel interface {
	Typing(ctx context.Context, conversation string) (stop func())
	NewStream(ctx context.Context, conversation string, opts *telegram.StreamOptions) (*telegram.Stream, error)
	Approve(ctx context.Context, conversation, requestID, prompt string, offerSession bool) (telegram.Decision, error)
}

// sessionApprovals remembers the sessions whose human chose "allow for
// session" on a live channel, until the gateway stops.
var sessionApprovals sync.Map

// chatApprover asks the human in the turn's own chat, with buttons bound to
// that chat and this request, to approve each shell command. The turn's
// timeout bounds the wait; no answer is a denial.
func chatApprover(ch liveChannel, inb channels.Inbound, session string) sandbox.Approver {
	var n atomic.Int64
	return sandbox.ApproverFunc(func(ctx context.Context, req *sandbox.ApprovalRequest) (sandbox.Decision, error) {
		if req.SessionAllowed {
			if _, ok := sessionApprovals.Load(session); ok {
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
		case telegram.DecisionAllowSession:
			if req.SessionAllowed {
				sessionApprovals.Store(session, true)
				return sandbox.AllowSession, err
			}
			return sandbox.Allow, err
		case telegram.DecisionAllow:
			return sandbox.Allow, err
		}
		return sandbox.Deny, err
	})
}

// liveTurn runs one turn on a live channel: the answer streams into one
// message that Finish turns into the final reply, so nothing goes through
// the bus and nothing is sent twice.
func (a *app) liveTurn(ctx context.Context, rt *wired, ch liveChannel, inb channels.Inbound, req agent.Request) {
	stopTyping := ch.Typing(ctx, inb.Conversation)
	defer stopTyping()
	turnCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := ch.NewStream(ctx, inb.Conversation, &telegram.StreamOptions{ReplyTo: inb.MessageID, Cancel: cancel})
	if err != nil {
		a.log.Error("reply stream not started", "channel", inb.Channel, "err", err)
		return
	}
	turnCtx = context.WithValue(turnCtx, progressKey{}, func(p *apiserver.Progress) {
		line := "⚙️ " + p.Tool
		if p.Detail != "" {
			line += ": " + p.Detail
		}
		stream.Status(line)
	})
	if rt.cfg.Tools.ShellApproval != "" && rt.cfg.Tools.ShellApproval != "off" {
		turnCtx = sandbox.WithApprover(turnCtx, chatApprover(ch, inb, req.SessionKey))
	}
	var text strings.Builder
	if rt.cfg.Agents.Defaults.Streaming {
		turnCtx = agent.WithSink(turnCtx, func(ev agent.StreamEvent) {
			switch {
			case ev.Notice != "":
				text.WriteString(ev.Notice + "\n")
			case ev.Delta != "":
				text.WriteString(ev.Delta)
			default:
				return
			}
			stream.Update(text.String())
		})
	}
	res, err := rt.agent.Process(turnCtx, req)
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
	}
	if err != nil {
		a.log.Warn("turn failed", "channel", inb.Channel, "err", err)
	}
	if err := stream.Finish(ctx, final); err != nil {
		a.log.Error("reply not delivered", "channel", inb.Channel, "chat", inb.Conversation, "err", err)
	}
	if ch, ok := ch.(channels.Channel); ok {
		a.offerChoices(ctx, ch, inb, res)
	}
}

// enabledChannels builds the adapters the config enables.
func (a *app) enabledChannels(rt *wired) ([]channels.Channel, error) {
	out := append([]channels.Channel(nil), a.extraChannels...)
	if tg := rt.cfg.Channels.Telegram; tg.Enabled {
		token, err := tg.BotToken()
		if err != nil {
			return nil, err
		}
		// Voice notes are transcribed when stt is configured; otherwise the
		// adapter answers honestly that it cannot listen yet.
		var voice telegram.Transcriber
		stt, _, err := services(rt.cfg)
		if err != nil {
			return nil, err
		}
		if stt != nil {
			voice = voiceTranscriber{stt.(transcriber)}
		}
		adapter, err := telegram.New(&telegram.Options{
			Token:        token,
			APIURL:       tg.APIURL,
			SpoolDir:     gatewaySpoolDir(rt.home),
			StreamDrafts: tg.StreamDrafts,
			Reactions:    tg.Reactions,
			Transcriber:  voice,
			Logger:       a.log,
		})
		if err != nil {
			return nil, err
		}
		out = append(out, adapter)
	}
	more, err := a.surfaceChannels(rt)
	if err != nil {
		return nil, err
	}
	out = append(out, more...)
	return out, nil
}
