package channels_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/joshbot/joshbot/channels"
)

type lockedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestRouterRunsMessagesWhenTheDiskIsFull: a message the inbox cannot
// record because the disk is full is still accepted and answered (from
// memory), instead of being refused so that the platform redelivers it
// every second, unanswered, for as long as the disk stays full. Any other
// write failure is still refused, so the platform keeps the message.
func TestRouterRunsMessagesWhenTheDiskIsFull(t *testing.T) {
	var logs lockedBuf
	r := newRouter(t, t.TempDir(), &channels.RouterOptions{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	var fail atomic.Pointer[error]
	channels.SetInboxWrite(r, func(write func() error) error {
		if e := fail.Load(); e != nil {
			return *e
		}
		return write()
	})
	full := error(&os.PathError{Op: "write", Path: "inbox/x.json", Err: syscall.ENOSPC})
	fail.Store(&full)
	c := newCollector()
	defer runRouter(t, r, c.handle, nil)()
	ctx := context.Background()
	for _, id := range []string{"1", "2"} {
		if err := r.Deliver(ctx, dm(id, "42", "msg "+id)); err != nil {
			t.Fatalf("a message was refused on a full disk: %v", err)
		}
	}
	if got := c.wait(t, 2); got[0].Text != "msg 1" || got[1].Text != "msg 2" {
		t.Fatalf("got %+v", got)
	}
	if n := strings.Count(logs.String(), "disk is full"); n != 1 {
		t.Errorf("the full disk was logged %d times, want once until it is freed:\n%s", n, logs.String())
	}
	other := error(errors.New("input/output error"))
	fail.Store(&other)
	if err := r.Deliver(ctx, dm("3", "42", "msg 3")); err == nil {
		t.Fatal("a message the inbox failed to record for another reason was acknowledged")
	}
	fail.Store(nil)
	if err := r.Deliver(ctx, dm("3", "42", "msg 3")); err != nil {
		t.Fatal(err)
	}
	if got := c.wait(t, 1); got[0].Text != "msg 3" {
		t.Fatalf("got %+v", got)
	}
}
