package channels_test

import (
	"context"
	"fmt"
	"os"
	"sync"

	"github.com/joshbot/joshbot/channels"
)

// A router admits allowlisted senders only, drops a redelivered message,
// and hands each accepted message to the handler, one at a time per
// conversation. An adapter calls Deliver; the program runs Run.
func ExampleRouter() {
	dir, _ := os.MkdirTemp("", "router")
	defer os.RemoveAll(dir)
	r, err := channels.NewRouter(&channels.RouterOptions{
		Dir:       dir,
		Channels:  []string{"telegram"},
		AllowFrom: map[string][]string{"telegram": {"7"}},
	})
	if err != nil {
		panic(err)
	}
	defer r.Close()

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	handled := make(chan string, 4)
	wg.Add(1)
	go func() {
		defer wg.Done()
		r.Run(ctx, func(_ context.Context, inb channels.Inbound) {
			handled <- inb.Principal + ": " + inb.Text
		}, func(context.Context, channels.Inbound) {})
	}()

	msg := channels.Inbound{Channel: "telegram", Conversation: "42", Principal: "7", Text: "hi", MessageID: "1001", IsDirect: true}
	r.Deliver(ctx, msg)
	r.Deliver(ctx, msg) // the platform delivered it twice
	r.Deliver(ctx, channels.Inbound{Channel: "telegram", Conversation: "43", Principal: "8", Text: "let me in", MessageID: "1002", IsDirect: true})
	r.Deliver(ctx, channels.Inbound{Channel: "telegram", Conversation: "42", Principal: "7", Text: "bye", MessageID: "1003", IsDirect: true})

	fmt.Println(<-handled)
	fmt.Println(<-handled)
	cancel()
	wg.Wait()
	fmt.Println(len(handled), "more")
	// Output:
	// 7: hi
	// 7: bye
	// 0 more
}
