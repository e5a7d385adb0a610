package channels

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"sync"
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

// addrTables are the ranges netip's predicates do not already cover, built
// on first use rather than at init.
//
// This is a copy of sandbox.PublicAddr's tables: channels may import only
// bus, so it cannot share them. joshbot/internal/archtest checks that
// [PublicAddr] and sandbox.PublicAddr agree on a corpus of addresses;
// change both together.
var addrTables = sync.OnceValue(func() (t struct {
	blocked          []netip.Prefix
	nat64, sixToFour netip.Prefix
}) {
	for _, s := range []string{
		"0.0.0.0/8",       // "this network"
		"100.64.0.0/10",   // shared address space (carrier-grade NAT)
		"192.0.0.0/24",    // IETF protocol assignments
		"192.0.2.0/24",    // documentation
		"192.88.99.0/24",  // 6to4 relay anycast
		"198.18.0.0/15",   // benchmarking
		"198.51.100.0/24", // documentation
		"203.0.113.0/24",  // documentation
		"240.0.0.0/4",     // reserved, and broadcast
		"::/96",           // IPv4-compatible (deprecated), and :: and ::1
		"64:ff9b:1::/48",  // local-use NAT64: translated by a site's own gateway
		"100::/64",        // discard
		"2001::/32",       // Teredo: tunnels to an IPv4 client hidden in the address
		"2001:2::/48",     // benchmarking
		"2001:10::/28",    // ORCHID (deprecated)
		"2001:20::/28",    // ORCHIDv2
		"2001:db8::/32",   // documentation
		"3fff::/20",       // documentation
		"5f00::/16",       // segment routing SIDs
		"fec0::/10",       // site-local (deprecated)
	} {
		t.blocked = append(t.blocked, netip.MustParsePrefix(s))
	}
	t.nat64 = netip.MustParsePrefix("64:ff9b::/96")
	t.sixToFour = netip.MustParsePrefix("2002::/16")
	return t
})

// PublicAddr reports whether ip is a public unicast address: not loopback,
// private, link-local (cloud metadata lives there), multicast, broadcast,
// unspecified, reserved, benchmarking, documentation, carrier-grade NAT,
// Teredo or deprecated space, and without a zone (a zone names a local
// interface). An IPv6 address that carries an IPv4 one (IPv4-mapped,
// NAT64 64:ff9b::/96, 6to4 2002::/16) is judged by the IPv4 address
// inside, since that is where the packets end up. It is safe for
// concurrent use.
func PublicAddr(ip netip.Addr) bool {
	if ip.Zone() != "" {
		return false
	}
	ip = ip.Unmap()
	t := addrTables()
	if ip.Is6() {
		b := ip.As16()
		switch {
		case t.nat64.Contains(ip):
			return PublicAddr(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}))
		case t.sixToFour.Contains(ip):
			return PublicAddr(netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}))
		}
	}
	if !ip.IsGlobalUnicast() || ip.IsPrivate() {
		return false
	}
	for _, p := range t.blocked {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}
