package gateway

import (
	"context"
	"path/filepath"

	"github.com/joshbot/joshbot/bus"
	"github.com/joshbot/joshbot/joshbot/internal/cron"
	"github.com/joshbot/joshbot/joshbot/internal/runtime"
)

// gatewayHooks joins the gateway to what this issue added: the message
// tools publish on its bus, each inbound chat is recorded as the last chat
// of its channel (chat_ids.json), and the heartbeat fires scheduled jobs
// into the bus. record is called for every inbound message; stop ends the
// heartbeat and must run before the bus closes.
func (g *Gateway) gatewayHooks(ctx context.Context, rt *runtime.Runtime, b *bus.Bus) (record func(channel, chat string), stop func()) {
	rt.Outbox.Attach(b)
	ids, err := cron.OpenChatIDs(filepath.Join(rt.Home, runtime.ChatIDsFile))
	if err != nil {
		g.log.Warn("last chats are not recorded; scheduled jobs go to the chat they were made in", "err", err)
		ids = nil
	}
	record = func(channel, chat string) {
		if ids == nil {
			return
		}
		if err := ids.Record(channel, chat); err != nil {
			g.log.Warn("last chat not recorded", "channel", channel, "err", err)
		}
	}
	s, err := rt.NewScheduler(b.PublishOutbound)
	if err != nil {
		g.log.Warn("scheduled jobs will not fire in the gateway", "err", err)
		return record, func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Run(ctx, cron.DefaultHeartbeat)
	}()
	return record, func() {
		cancel()
		<-done
	}
}
