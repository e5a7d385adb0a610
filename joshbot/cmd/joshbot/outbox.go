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
