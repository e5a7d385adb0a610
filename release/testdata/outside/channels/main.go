// Command channels is an outside program that imports the published channels
// module: a Router delivering a message from the channeltest fake platform to
// a handler that answers through it, and a Telegram channel built from options.
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/channels/channeltest"
	"github.com/joshbot/joshbot/channels/telegram"

	// The other adapters are linked in so the dependency budget covers them.
	_ "github.com/joshbot/joshbot/channels/discord"
	_ "github.com/joshbot/joshbot/channels/slack"
	_ "github.com/joshbot/joshbot/channels/webhook"
)

func main() {
	dir, err := os.MkdirTemp("", "outside-channels-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	fake := channeltest.NewFake()
	r, err := channels.NewRouter(&channels.RouterOptions{Dir: dir, AllowFrom: map[string][]string{fake.Name(): {"42"}}})
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	handler := func(ctx context.Context, inb channels.Inbound) {
		if err := fake.Send(ctx, inb.Conversation, channels.Outbound{Text: "echo: " + inb.Text}); err != nil {
			log.Print(err)
		}
	}
	go r.Run(ctx, handler, handler)
	go fake.Start(ctx, r)
	fake.Inject(channels.Inbound{Channel: fake.Name(), Conversation: "c1", Principal: "42", IsDirect: true, Text: "hello"})
	rec, err := fake.Wait(ctx, func(rec channeltest.Record) bool { return len(rec.Sent) > 0 })
	if err != nil {
		log.Fatal(err)
	}
	if err := telegram.ValidateAPIURL("https://api.telegram.org"); err != nil {
		log.Fatal(err)
	}
	tg, err := telegram.New(&telegram.Options{Token: "123456:outside-test-token", SpoolDir: dir})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("channels ok: %d sent, %q; telegram channel %q\n", len(rec.Sent), rec.Sent[0].Message.Text, tg.Name())
}
