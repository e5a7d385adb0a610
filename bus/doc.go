// Package bus carries messages between chat channels and the agent.
//
// Inbound messages from every channel are published to one queue the agent
// workers consume. Outbound replies are fanned out to a private queue per
// registered consumer ([Bus.OutboundChannel]), so when Telegram and Discord
// run at once each sees every reply and delivers only its own: no consumer
// can steal a message meant for another, and none is dropped.
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
