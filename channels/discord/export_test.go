package discord

import (
	"context"
	"net/http"
)

// Backoff is the adapter's reconnect and redelivery ladder.
type Backoff interface {
	Sleep(ctx context.Context) error
	Reset()
}

// SetBackoff replaces the ladders.
func (d *Discord) SetBackoff(f func() Backoff) { d.newBackoff = func() backoff { return f() } }

// SetDownloader replaces the attachment client and host check, so tests
// can fetch from a fake CDN on the loopback address.
func (d *Discord) SetDownloader(c *http.Client, hostOK func(string) bool) {
	d.download, d.hostOK = c, hostOK
}
