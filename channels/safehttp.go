package channels

import (
	"time"

	"net/http"

	"github.com/joshbot/joshbot/sandbox/egress"
)

// ErrNonPublicAddress is returned (wrapped) when a connection would reach
// an address that is not on the public internet. It is
// [egress.ErrNonPublicAddress], so errors.Is matches either name.
var ErrNonPublicAddress error = egress.NonPublicAddressError{}

// SafeHTTPClient returns an HTTP client for URLs that arrive in messages,
// such as attachment downloads. It is the guarded client of package
// [github.com/joshbot/joshbot/sandbox/egress]: every connection it opens,
// including those that follow redirects, is checked against the resolved
// address at dial time and again on the socket, so neither a host name
// that resolves to a private address nor one that changes its answer
// between a check and the dial (DNS rebinding) reaches inside the
// network. It ignores proxy settings, since a proxy would dial on its
// behalf unchecked, and follows at most five redirects, only over http
// and https and only to public addresses. timeout bounds each whole
// request; zero means 30 seconds.
func SafeHTTPClient(timeout time.Duration) *http.Client {
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	g := &egress.Guard{DialTimeout: 10 * time.Second}
	c := g.Client(timeout)
	tr := c.Transport.(*http.Transport)
	tr.ResponseHeaderTimeout = timeout
	tr.MaxIdleConns = 4
	return c
}
