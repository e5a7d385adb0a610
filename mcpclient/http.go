package mcpclient

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/joshbot/joshbot/sandbox/egress"
)

// ErrPrivateAddress is returned (wrapped) when a Streamable HTTP server's
// address is loopback, private, link-local or otherwise not on the public
// internet and the server's config does not allow it. It is
// [egress.ErrNonPublicAddress]: the rule is the one outbound address
// guard's, package github.com/joshbot/joshbot/sandbox/egress, which
// web_fetch and channel downloads obey too, so errors.Is matches either
// name.
var ErrPrivateAddress error = egress.NonPublicAddressError{}

// newHTTPClient returns the client a Streamable HTTP server is spoken to
// with: no proxy (a proxy would dial for us, past the address check),
// every name and address checked by an [egress.Guard] when dialling and on
// the socket, every redirect checked likewise, and every response body
// capped per message, calling onOver when a message is too large. With
// allowPrivate (Server.AllowPrivate) there is no address check: the
// operator named the server.
func newHTTPClient(allowPrivate bool, onOver func()) *http.Client {
	var tr *http.Transport
	check := func(req *http.Request, via []*http.Request) error {
		if len(via) >= 5 {
			return errorf("stopped after %d redirects", len(via))
		}
		return nil
	}
	if allowPrivate {
		d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
		tr = &http.Transport{Proxy: nil, DialContext: d.DialContext, ForceAttemptHTTP2: true, TLSHandshakeTimeout: 10 * time.Second, ExpectContinueTimeout: time.Second}
	} else {
		g := &egress.Guard{DialTimeout: 10 * time.Second}
		tr = g.Transport()
		tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := g.DialContext(ctx, network, addr)
			if errors.Is(err, egress.ErrNonPublicAddress) {
				err = errorf("%w; set allow_private on the server to reach it", err)
			}
			return c, err
		}
		check = g.CheckRedirect
	}
	tr.MaxIdleConns = 4
	tr.IdleConnTimeout = 90 * time.Second
	return &http.Client{Transport: &capTransport{rt: tr, onOver: onOver}, CheckRedirect: check}
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
