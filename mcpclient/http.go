package mcpclient

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"syscall"
	"time"
)

// ErrPrivateAddress is returned when a Streamable HTTP server's address is
// loopback, private, link-local or otherwise not on the public internet and
// the server's config does not allow it.
//
// The rule is the one web_fetch applies; it lives here too because this
// module may not import tools. The two should share one implementation once
// one module can hold it for both.
var ErrPrivateAddress = errors.New("address is not public")

// nonPublic are the ranges netip's predicates do not already cover.
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // documentation
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, and broadcast
	netip.MustParsePrefix("64:ff9b::/96"),    // NAT64, which can reach private IPv4
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use NAT64
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("2002::/16"),       // 6to4, which embeds any IPv4
}

// publicAddr reports whether ip may be dialled without allow_private.
func publicAddr(ip netip.Addr) bool {
	ip = ip.Unmap()
	if !ip.IsValid() || ip.IsUnspecified() || ip.IsLoopback() || ip.IsPrivate() ||
		ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsInterfaceLocalMulticast() ||
		ip.IsMulticast() || !ip.IsGlobalUnicast() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

// dialControl checks the address actually being dialled, after name
// resolution, so neither a DNS answer nor a redirect can point the
// connection somewhere private.
func dialControl(allowPrivate bool) func(network, address string, _ syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		if allowPrivate {
			return nil
		}
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			return err
		}
		ip, err := netip.ParseAddr(host)
		if err != nil {
			return fmt.Errorf("dial %s: %w", address, err)
		}
		if !publicAddr(ip) {
			return fmt.Errorf("dial %s: %w (set allow_private on the server to reach it)", address, ErrPrivateAddress)
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
