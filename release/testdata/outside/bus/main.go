// Command bus is an outside program that imports the published bus module:
// one inbound and one outbound message through a Bus.
package main

import (
	"context"
	"fmt"
	"log"

	"github.com/joshbot/joshbot/bus"
)

func main() {
	b := bus.New(&bus.Options{Buffer: 4})
	defer b.Close()
	ctx := context.Background()
	if err := b.PublishInbound(ctx, bus.Inbound{Channel: "cli", ChatID: "1", Text: "ping"}); err != nil {
		log.Fatal(err)
	}
	in := <-b.Inbound()
	out := b.OutboundChannel("cli")
	if err := b.PublishOutbound(ctx, bus.Outbound{Channel: "cli", ChatID: in.ChatID, Text: in.Text + " pong"}); err != nil {
		log.Fatal(err)
	}
	o := <-out
	fmt.Println("bus ok:", in.SessionKey(), o.Text)
}
