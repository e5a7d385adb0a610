package runtime

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/joshbot/joshbot/bus"
)

// CLIOutbox delivers the message and send_file tools' output for the
// command line, the one conversation a CLI run has. A terminal cannot carry
// a file, so an attachment is named with its size and path instead.
// Messages for other channels are refused rather than dropped: the gateway
// owns those.
type CLIOutbox struct {
	// W receives each message as a line.
	W  io.Writer
	mu sync.Mutex
}

// PublishOutbound prints m when it is for the command line and refuses it
// otherwise.
func (o *CLIOutbox) PublishOutbound(_ context.Context, m bus.Outbound) error {
	if m.Channel != "cli" {
		return errorf("no %s channel runs in this process; start the gateway to reach it", m.Channel)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	_, err := fmt.Fprintf(o.W, "%s\n", m.TextWithAttachmentNotes())
	return err
}

// Outbox is the message and send_file tools' delivery for the whole
// process: command-line messages are printed; chat-channel messages go to
// the gateway's bus once the gateway attaches it, and are refused with a
// reason before that. It is safe for concurrent use.
type Outbox struct {
	cli *CLIOutbox
	mu  sync.RWMutex
	bus interface {
		PublishOutbound(ctx context.Context, m bus.Outbound) error
	}
}

// PublishOutbound delivers m: printed for the command line, else onto the
// attached bus.
func (o *Outbox) PublishOutbound(ctx context.Context, m bus.Outbound) error {
	if m.Channel == "cli" {
		return o.cli.PublishOutbound(ctx, m)
	}
	o.mu.RLock()
	b := o.bus
	o.mu.RUnlock()
	if b == nil {
		return errorf("no %s channel runs in this process; start the gateway to reach it", m.Channel)
	}
	return b.PublishOutbound(ctx, m)
}

// Attach makes chat-channel messages go to b from now on.
func (o *Outbox) Attach(b *bus.Bus) {
	o.mu.Lock()
	o.bus = b
	o.mu.Unlock()
}
