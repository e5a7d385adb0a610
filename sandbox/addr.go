package sandbox

import (
	"errors"
	"fmt"
	"net/netip"
	"sync"
	"syscall"
)

// ErrNonPublicAddress is wrapped by the errors [DialControl] returns when a
// connection would reach an address [PublicAddr] refuses. A package that
// enforces the policy may export the same value under a name of its own,
// so errors.Is matches whichever name the caller knows.
var ErrNonPublicAddress = errors.New("address is not public")

// addrTables are the ranges netip's predicates do not already cover. They
// are built on first use, not at init, so a program that never checks an
// address pays nothing for them.
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

// PublicAddr reports whether a is an ordinary public unicast address, one
// that a request arriving from outside may make this machine connect to.
// It refuses loopback, unspecified, private (RFC 1918 and IPv6 unique
// local), link-local (where cloud metadata services live), multicast,
// broadcast, carrier-grade NAT, benchmarking, documentation, reserved and
// deprecated ranges, Teredo, and any address with a zone, since a zone
// names a local interface. An IPv6 address that carries an IPv4 one
// (IPv4-mapped, NAT64 64:ff9b::/96, 6to4 2002::/16) is judged by the IPv4
// address inside, because that is where the packets end up. The zero
// Addr is not public.
//
// The answer depends on a alone; it is safe for concurrent use. A caller
// that checks a host name must check every address the name resolves to,
// and check again at connect time ([DialControl]), since a second lookup
// may answer differently.
func PublicAddr(a netip.Addr) bool {
	if a.Zone() != "" {
		return false
	}
	a = a.Unmap()
	t := addrTables()
	if a.Is6() {
		b := a.As16()
		switch {
		case t.nat64.Contains(a):
			return PublicAddr(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}))
		case t.sixToFour.Contains(a):
			return PublicAddr(netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}))
		}
	}
	if !a.IsGlobalUnicast() || a.IsPrivate() {
		return false
	}
	for _, p := range t.blocked {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

// DescribeAddr names the kind of address a is, for an error message that
// says why a was refused: "loopback", "a private address", "link-local
// (cloud metadata lives here)", "multicast", "unspecified", "not a public
// address", or "public" when [PublicAddr] accepts it.
func DescribeAddr(a netip.Addr) string {
	u := a.Unmap()
	switch {
	case PublicAddr(a):
		return "public"
	case u.IsLoopback():
		return "loopback"
	case u.IsUnspecified():
		return "unspecified"
	case u.IsPrivate():
		return "a private address"
	case u.IsLinkLocalUnicast():
		return "link-local (cloud metadata lives here)"
	case u.IsMulticast():
		return "multicast"
	}
	return "not a public address"
}

// DialControl returns a function for [net.Dialer].Control that refuses,
// just before connect(2), any address [PublicAddr] rejects. Checking the
// socket's address, after every name lookup and redirect, is what defeats
// DNS rebinding: the address checked is the one connected to. allow, when
// not nil, admits addresses as if they were public (an operator's explicit
// opt-in, or a test reaching a server on loopback); everything else is
// judged by PublicAddr. An address the function cannot parse is refused.
// Refusals wrap [ErrNonPublicAddress].
//
// A client using it must not use a proxy: the proxy's address, not the
// destination's, would be the one checked.
func DialControl(allow func(netip.AddrPort) bool) func(network, address string, c syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("%w: cannot read the address %q being connected to", ErrNonPublicAddress, address)
		}
		if allow != nil && allow(ap) {
			return nil
		}
		if !PublicAddr(ap.Addr()) {
			return fmt.Errorf("%w: refusing to connect to %s (%s)", ErrNonPublicAddress, ap, DescribeAddr(ap.Addr()))
		}
		return nil
	}
}
