// Package bus carries messages between chat channels and the agent.
//
// Outbound replies are fanned out to a private queue per registered
// consumer ([Bus.OutboundChannel]), so when Telegram and Discord run at
// once each sees every reply and delivers only its own: no consumer can
// steal a message meant for another, and none is dropped.
//
// # Inbound: the durable inbox, not the bus
//
// The inbound half ([Bus.PublishInbound], [Bus.Inbound], [Inbound]) is
// deprecated and kept only for importers of v0.1.0. In joshbot an inbound
// message must survive a crash between the platform's acknowledgement and
// the end of its turn, run after the same sender's earlier messages and
// never twice. The channels module's router gives exactly that: it records
// each accepted message in a durable inbox on disk before acknowledging
// it, runs turns one at a time per conversation, and settles the entry
// when the turn returns. Passing the message through an in-memory queue
// as well would add a hop that loses its contents on a crash, orders all
// senders behind one another and cannot tell the inbox when a turn ends,
// so the router hands accepted messages to the agent itself and the inbox
// is the inbound queue. The bus carries the outbound direction.
//
// # Quick start
//
//	b := bus.New(nil)
//	tg := b.OutboundChannel("telegram")
//	go func() {
//		for out := range tg {
//			if out.Channel == "telegram" { send(out) }
//		}
//	}()
//	_ = b.PublishOutbound(ctx, bus.Outbound{Channel: "telegram", ChatID: "42", Text: "hi"})
//
// The bus is a leaf module: it imports no other joshbot module.
package bus
