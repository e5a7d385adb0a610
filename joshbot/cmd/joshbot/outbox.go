package main

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/joshbot/joshbot/bus"
)

// cliOutbox delivers the message and send_file tools' output for the
// command line, the one conversation a CLI run has. A terminal cannot carry
// a file, so an attachment is named with its size and path instead.
// Messages for other channels are refused rather than dropped: the gateway
// owns those.
type cliOutbox struct {
	mu sync.Mutex
	w  io.Writer
}

func (o *cliOutbox) PublishOutbound(_ context.Context, m bus.Outbound) error {
	if m.Channel != "cli" {
		return fmt.Errorf("no %s channel runs in this process; start the gateway to reach it", m.Channel)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	_, err := fmt.Fprintf(o.w, "%s\n", m.TextWithAttachmentNotes())
	return err
}

// routedOutbox is the message and send_file tools' delivery for the whole
// process: command-line messages are printed; chat-channel messages go to
// the gateway's bus once [app.gatewayHooks] attaches it, and are refused
// with a reason before that.
type routedOutbox struct {
	cli *cliOutbox
	mu  sync.RWMutex
	bus interface {
		PublishOutbound(ctx context.Context, m bus.Outbound) error
	}
}

func (o *routedOutbox) PublishOutbound(ctx context.Context, m bus.Outbound) error {
	if m.Channel == "cli" {
		return o.cli.PublishOutbound(ctx, m)
	}
	o.mu.RLock()
	b := o.bus
	o.mu.RUnlock()
	if b == nil {
		return fmt.Errorf("no %s channel runs in this process; start the gateway to reach it", m.Channel)
	}
	return b.PublishOutbound(ctx, m)
}

func (o *routedOutbox) attach(b *bus.Bus) {
	o.mu.Lock()
	o.bus = b
	o.mu.Unlock()
}
