package channels

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// ErrNonPublicAddress is returned (wrapped) when a connection would reach
// an address that is not on the public internet.
var ErrNonPublicAddress = errors.New("refused: not a public address")

// SafeHTTPClient returns an HTTP client for URLs that arrive in messages.
// Every connection it opens, including those that follow redirects, is
// checked against the resolved IP at dial time, so neither a hostname that
// resolves to a private address nor one that changes its answer between a
// check and the dial (DNS rebinding) reaches inside the network. It
// ignores proxy settings, since a proxy would dial on its behalf unchecked,
// follows at most five redirects, and only over http and https. timeout
// bounds each whole request; zero means 30 seconds.
func SafeHTTPClient(timeout time.Duration) *http.Client {
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	dialer := &net.Dialer{
		Timeout: 10 * time.Second,
		Control: func(network, address string, _ syscall.RawConn) error {
			return checkDialAddress(address)
		},
	}
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: timeout,
		MaxIdleConns:          4,
		IdleConnTimeout:       30 * time.Second,
	}
	return &http.Client{
		Timeout:   timeout,
		Transport: transport,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 5 {
				return errors.New("stopped after 5 redirects")
			}
			if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
				return fmt.Errorf("refused redirect to scheme %q", req.URL.Scheme)
			}
			return nil
		},
	}
}

// checkDialAddress refuses a resolved host:port that is not public.
func checkDialAddress(address string) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrNonPublicAddress, address)
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrNonPublicAddress, address)
	}
	if !PublicAddr(ip) {
		return fmt.Errorf("%w: %s", ErrNonPublicAddress, ip)
	}
	return nil
}

// nonPublic lists the ranges that are not reachable public unicast beyond
// what netip's own predicates cover.
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // documentation
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, and broadcast
	netip.MustParsePrefix("100::/64"),        // discard
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("2001::/32"),       // Teredo: tunnels to an embedded address
	netip.MustParsePrefix("fec0::/10"),       // deprecated site-local
}

// embeddedV4 lists IPv6 ranges that carry an IPv4 address a gateway will
// reach on the caller's behalf, and where in the address it sits.
var embeddedV4 = []struct {
	prefix netip.Prefix
	offset int
}{
	{netip.MustParsePrefix("64:ff9b::/96"), 12},  // NAT64
	{netip.MustParsePrefix("64:ff9b:1::/48"), 6}, // local-use NAT64
	{netip.MustParsePrefix("2002::/16"), 2},      // 6to4
}

// PublicAddr reports whether ip is a public unicast address: not loopback,
// private, link-local (cloud metadata lives there), multicast,
// unspecified, reserved, documentation, carrier-grade NAT, and not an IPv6
// form that embeds a non-public IPv4 address (mapped, NAT64, 6to4).
func PublicAddr(ip netip.Addr) bool {
	ip = ip.Unmap().WithZone("")
	if !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsUnspecified() ||
		ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsInterfaceLocalMulticast() || ip.IsMulticast() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(ip) {
			return false
		}
	}
	if ip.Is6() {
		for _, e := range embeddedV4 {
			if e.prefix.Contains(ip) {
				b := ip.As16()
				v4 := netip.AddrFrom4([4]byte(b[e.offset : e.offset+4]))
				if !PublicAddr(v4) {
					return false
				}
			}
		}
	}
	return true
}
