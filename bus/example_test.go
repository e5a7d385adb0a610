package bus_test

import (
	"context"
	"fmt"

	"github.com/joshbot/joshbot/bus"
)

// The agent side publishes a reply, which reaches every registered
// consumer; each delivers only its own channel's replies.
func ExampleBus() {
	ctx := context.Background()
	b := bus.New(nil)
	defer b.Close()
	telegram := b.OutboundChannel("telegram")
	discord := b.OutboundChannel("discord")

	if err := b.PublishOutbound(ctx, bus.Outbound{Channel: "telegram", ChatID: "42", Text: "hello"}); err != nil {
		panic(err)
	}
	out := <-telegram
	fmt.Println("telegram delivers", out.Text, "to chat", out.ChatID)
	other := <-discord
	fmt.Println("discord skips a reply for", other.Channel)
	// Output:
	// telegram delivers hello to chat 42
	// discord skips a reply for telegram
}
