package bus_test

import (
	"context"
	"fmt"

	"github.com/joshbot/joshbot/bus"
)

// A channel publishes what arrived; the agent side consumes it and
// publishes a reply, which reaches every registered consumer; each
// delivers only its own channel's replies.
func ExampleBus() {
	ctx := context.Background()
	b := bus.New(nil)
	defer b.Close()
	telegram := b.OutboundChannel("telegram")
	discord := b.OutboundChannel("discord")

	if err := b.PublishInbound(ctx, bus.Inbound{Channel: "telegram", ChatID: "42", SenderID: "7", Text: "hi"}); err != nil {
		panic(err)
	}
	in := <-b.Inbound()
	fmt.Println("agent got", in.Text, "for session", in.SessionKey())

	if err := b.PublishOutbound(ctx, bus.Outbound{Channel: in.Channel, ChatID: in.ChatID, Text: "hello"}); err != nil {
		panic(err)
	}
	out := <-telegram
	fmt.Println("telegram delivers", out.Text, "to chat", out.ChatID)
	other := <-discord
	fmt.Println("discord skips a reply for", other.Channel)
	// Output:
	// agent got hi for session telegram:7
	// telegram delivers hello to chat 42
	// discord skips a reply for telegram
}
