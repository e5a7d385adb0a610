package mcpclient

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"

	"github.com/joshbot/joshbot/sandbox"
)

// ErrPrivateAddress is returned (wrapped) when a Streamable HTTP server's
// address is loopback, private, link-local or otherwise not on the public
// internet and the server's config does not allow it. It is
// [sandbox.ErrNonPublicAddress]: the rule is sandbox.PublicAddr, the one
// web_fetch applies, so errors.Is matches either name.
var ErrPrivateAddress = sandbox.ErrNonPublicAddress

// dialControl checks the address actually being dialled, after name
// resolution, so neither a DNS answer nor a redirect can point the
// connection somewhere private. With allowPrivate there is no check.
func dialControl(allowPrivate bool) func(network, address string, c syscall.RawConn) error {
	if allowPrivate {
		return nil
	}
	check := sandbox.DialControl(nil)
	return func(network, address string, c syscall.RawConn) error {
		if err := check(network, address, c); err != nil {
			return fmt.Errorf("%w; set allow_private on the server to reach it", err)
		}
		return nil
	}
}

// newHTTPClient returns the client a Streamable HTTP server is spoken to
// with: no proxy (a proxy would dial for us, past the address check),
// addresses checked at dial time, and every response body capped per
// message, calling onOver when a message is too large.
func newHTTPClient(allowPrivate bool, onOver func()) *http.Client {
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second, Control: dialControl(allowPrivate)}
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           d.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          4,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	return &http.Client{
		Transport: &capTransport{rt: tr, onOver: onOver},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 5 {
				return fmt.Errorf("stopped after %d redirects", len(via))
			}
			return nil
		},
	}
}

// capTransport caps each response body at [MaxMessage] per message: per
// event for an event stream, the whole body otherwise.
type capTransport struct {
	rt     http.RoundTripper
	onOver func()
}

func (c *capTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.rt.RoundTrip(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	mode := whole
	if strings.HasPrefix(strings.ToLower(resp.Header.Get("Content-Type")), "text/event-stream") {
		mode = perEvent
	}
	resp.Body = newCapReader(resp.Body, mode, MaxMessage, c.onOver)
	return resp, nil
}

// closeIdle releases the client's idle connections.
func closeIdle(c *http.Client) {
	if c != nil {
		c.CloseIdleConnections()
	}
}
