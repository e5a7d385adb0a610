package bus

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

func TestOutboundFansOutToEveryConsumer(t *testing.T) {
	b := New(nil)
	defer b.Close()
	tg := b.OutboundChannel("telegram")
	dc := b.OutboundChannel("discord")
	if again := b.OutboundChannel("telegram"); again != tg {
		t.Fatal("OutboundChannel returned a different queue for the same name")
	}
	want := Outbound{Channel: "telegram", ChatID: "1", Text: "hi"}
	if err := b.PublishOutbound(context.Background(), want); err != nil {
		t.Fatal(err)
	}
	for name, ch := range map[string]<-chan Outbound{"telegram": tg, "discord": dc} {
		select {
		case got := <-ch:
			if got.Text != want.Text || got.Channel != want.Channel {
				t.Errorf("%s got %+v, want %+v", name, got, want)
			}
		case <-time.After(time.Second):
			t.Errorf("%s never received the message", name)
		}
	}
}

func TestOutboundWithoutConsumerIsAnError(t *testing.T) {
	b := New(nil)
	defer b.Close()
	if err := b.PublishOutbound(context.Background(), Outbound{Channel: "x"}); err == nil {
		t.Fatal("publishing with no consumer must not be a silent drop")
	}
}

func TestInboundOrderAndSessionKey(t *testing.T) {
	b := New(&Options{Buffer: 4})
	defer b.Close()
	ctx := context.Background()
	for _, txt := range []string{"a", "b", "c"} {
		if err := b.PublishInbound(ctx, Inbound{Channel: "telegram", SenderID: "7", Text: txt}); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []string{"a", "b", "c"} {
		got := <-b.Inbound()
		if got.Text != want {
			t.Fatalf("got %q, want %q", got.Text, want)
		}
		if got.SessionKey() != "telegram:7" {
			t.Fatalf("SessionKey = %q", got.SessionKey())
		}
	}
}

func TestPublishRespectsContextWhenFull(t *testing.T) {
	b := New(&Options{Buffer: 1})
	defer b.Close()
	if err := b.PublishInbound(context.Background(), Inbound{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := b.PublishInbound(ctx, Inbound{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", err)
	}
}

func TestCloseWakesBlockedPublishersAndClosesQueues(t *testing.T) {
	b := New(&Options{Buffer: 1})
	out := b.OutboundChannel("c")
	ctx := context.Background()
	if err := b.PublishOutbound(ctx, Outbound{}); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() { errc <- b.PublishOutbound(ctx, Outbound{}) }()
	time.Sleep(10 * time.Millisecond)
	b.Close()
	b.Close()
	select {
	case err := <-errc:
		if !errors.Is(err, ErrClosed) {
			t.Fatalf("blocked publisher got %v, want ErrClosed", err)
		}
	case <-time.After(time.Second):
		t.Fatal("Close did not wake the blocked publisher")
	}
	<-out // the message buffered before Close is still delivered
	if _, ok := <-out; ok {
		t.Fatal("consumer queue not closed")
	}
	if _, ok := <-b.Inbound(); ok {
		t.Fatal("inbound queue not closed")
	}
	if err := b.PublishInbound(ctx, Inbound{}); !errors.Is(err, ErrClosed) {
		t.Fatalf("publish after close: %v", err)
	}
	if _, ok := <-b.OutboundChannel("late"); ok {
		t.Fatal("a consumer registered after Close must get a closed queue")
	}
}

func TestConcurrentPublishers(t *testing.T) {
	b := New(nil)
	defer b.Close()
	out := b.OutboundChannel("c")
	const n = 200
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := b.PublishOutbound(context.Background(), Outbound{Text: "x"}); err != nil {
				t.Error(err)
			}
		}()
	}
	got := 0
	for got < n {
		<-out
		got++
	}
	wg.Wait()
}
