package channeltest_test

import (
	"context"
	"fmt"

	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/channels/channeltest"
)

// reply stands for the code under test: it streams the answer where the
// channel can show a live reply, and sends it plainly elsewhere.
func reply(ctx context.Context, ch channels.Channel, conversation, answer string) error {
	if st, ok := ch.(channels.Streamer); ok {
		s, err := st.StartStream(ctx, conversation, nil)
		if err != nil {
			return err
		}
		s.Update(answer[:5])
		return s.Finish(ctx, answer)
	}
	return ch.Send(ctx, conversation, channels.Outbound{Text: answer})
}

func ExampleNewFake() {
	ctx := context.Background()
	fake := channeltest.NewFake()
	reply(ctx, fake, "dm-1", "Hello, world")
	// The same fake with its abilities hidden: only Channel's methods.
	reply(ctx, struct{ channels.Channel }{fake}, "dm-1", "Plain reply")

	rec := fake.Record()
	fmt.Printf("streamed %q, finished with %q\n", rec.Streams[0].Updates, rec.Streams[0].Final)
	fmt.Printf("sent %q\n", rec.SentTo("dm-1")[0].Text)
	// Output:
	// streamed ["Hello"], finished with "Hello, world"
	// sent "Plain reply"
}

// sinkFunc is a channels.Sink from a function.
type sinkFunc func(ctx context.Context, inb channels.Inbound) error

func (f sinkFunc) Deliver(ctx context.Context, inb channels.Inbound) error { return f(ctx, inb) }

func ExampleFake_Inject() {
	fake := channeltest.NewFake()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- fake.Start(ctx, sinkFunc(func(context.Context, channels.Inbound) error { return nil }))
	}()

	fake.Inject(channels.Inbound{Conversation: "dm-42", Principal: "42", Text: "hi", MessageID: "1", IsDirect: true})
	rec, err := fake.Wait(ctx, func(r channeltest.Record) bool { return len(r.Delivered) == 1 })
	if err != nil {
		fmt.Println(err)
	}
	fmt.Println(rec.Delivered[0].Channel, rec.Delivered[0].Principal, rec.Delivered[0].Text)
	cancel()
	<-done
	// Output: fake 42 hi
}

func ExampleFake_Approve() {
	ctx := context.Background()
	fake := channeltest.NewFake()
	answered := make(chan bool)
	go func() {
		// The user: wait for the prompt, then press "allow for session".
		rec, _ := fake.Wait(ctx, func(r channeltest.Record) bool { return len(r.PendingApprovals()) == 1 })
		answered <- rec.PendingApprovals()[0].Answer(channels.DecisionAllowSession)
	}()

	d, err := fake.Approve(ctx, "dm-42", "req-1", "Run `make clean`?", true)
	fmt.Println(d, err, <-answered)
	// Output: allowed for this session <nil> true
}
