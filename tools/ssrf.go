package tools

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ErrBlockedAddress marks a URL or connection refused because it leads to
// a loopback, private, link-local or otherwise non-public address.
var ErrBlockedAddress = errors.New("address is not public")

// Resolver looks up a host's addresses. *net.Resolver implements it; tests
// substitute answers that change between calls, as a rebinding DNS server
// would.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// blockedPrefixes are ranges that are not reachable on the public
// Internet or that reach infrastructure: shared address space, the
// benchmarking and documentation networks, reserved space, IPv4-compatible
// and discard IPv6, Teredo (which hides an arbitrary IPv4 client), the
// local-use NAT64 prefix, documentation, ORCHID and site-local IPv6.
var blockedPrefixes = sync.OnceValue(func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{
		"0.0.0.0/8", "100.64.0.0/10", "192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "198.18.0.0/15",
		"198.51.100.0/24", "203.0.113.0/24", "240.0.0.0/4",
		"::/96", "100::/64", "2001::/32", "2001:10::/28", "2001:20::/28", "2001:db8::/32", "3fff::/20",
		"64:ff9b:1::/48", "fec0::/10",
	} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
})

var (
	nat64     = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour = netip.MustParsePrefix("2002::/16")
)

// publicAddr reports whether a is an ordinary public unicast address.
// An IPv6 address that embeds an IPv4 one (mapped, NAT64, 6to4) is judged
// by the IPv4 address inside, since that is where the packets end up.
func publicAddr(a netip.Addr) bool {
	if a.Zone() != "" {
		return false
	}
	a = a.Unmap()
	if a.Is6() {
		b := a.As16()
		switch {
		case nat64.Contains(a):
			return publicAddr(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}))
		case sixToFour.Contains(a):
			return publicAddr(netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}))
		}
	}
	if !a.IsGlobalUnicast() || a.IsPrivate() {
		return false
	}
	for _, p := range blockedPrefixes() {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

// parseHostIP reads host as an IP address in any form a C resolver would
// accept: dotted quads with fewer than four parts (127.1), one 32-bit
// number (2130706433), hexadecimal (0x7f000001, 0x7f.0.0.1) and octal
// (0177.0.0.1, 017700000001) parts, and IPv6. ok is false for a name.
func parseHostIP(host string) (addr netip.Addr, ok bool) {
	if a, err := netip.ParseAddr(host); err == nil {
		return a, true
	}
	h := strings.TrimSuffix(host, ".")
	parts := strings.Split(h, ".")
	if len(parts) == 0 || len(parts) > 4 {
		return netip.Addr{}, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		if p == "" {
			return netip.Addr{}, false
		}
		base := 10
		digits := p
		switch {
		case strings.HasPrefix(p, "0x") || strings.HasPrefix(p, "0X"):
			base, digits = 16, p[2:]
			if digits == "" {
				digits = "0"
			}
		case len(p) > 1 && p[0] == '0':
			base, digits = 8, p[1:]
		}
		v, err := strconv.ParseUint(digits, base, 32)
		if err != nil {
			return netip.Addr{}, false
		}
		vals[i] = v
	}
	var n uint64
	for i, v := range vals[:len(vals)-1] {
		if v > 255 {
			return netip.Addr{}, false
		}
		n |= v << (8 * (3 - uint(i)))
	}
	last := vals[len(vals)-1]
	if last >= 1<<(8*(5-uint(len(vals)))) {
		return netip.Addr{}, false
	}
	n |= last
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true
}

// blockedNames are host names that always mean this machine or the cloud
// provider's metadata service, whatever DNS says.
func blockedName(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	switch h {
	case "localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback", "metadata", "metadata.google.internal", "instance-data":
		return true
	}
	for _, suf := range []string{".localhost", ".internal", ".local", ".home.arpa"} {
		if strings.HasSuffix(h, suf) {
			return true
		}
	}
	return false
}

// ssrfGuard refuses non-public destinations twice: up front by the URL's
// host, and at dial time against the address actually connected to, which
// closes the gap DNS rebinding and redirects would otherwise use.
type ssrfGuard struct {
	resolver Resolver
	dialer   net.Dialer
	// allow admits specific addresses as if they were public. It is nil in
	// production; tests set it to reach an httptest server on loopback
	// and so show that everything else is still refused.
	allow func(netip.AddrPort) bool
}

func newSSRFGuard(r Resolver) *ssrfGuard {
	if r == nil {
		r = net.DefaultResolver
	}
	g := &ssrfGuard{resolver: r}
	g.dialer = net.Dialer{Timeout: 15 * time.Second, Control: g.control}
	return g
}

func (g *ssrfGuard) permitted(ap netip.AddrPort) bool {
	if g.allow != nil && g.allow(ap) {
		return true
	}
	return publicAddr(ap.Addr())
}

// checkURL is the up-front check of a URL about to be fetched.
func (g *ssrfGuard) checkURL(ctx context.Context, u *url.URL) error {
	switch u.Scheme {
	case "http", "https":
	default:
		return fmt.Errorf("scheme %q is not allowed; only http and https URLs can be fetched", u.Scheme)
	}
	if u.User != nil {
		return errors.New("URLs with credentials (user:password@) are not fetched")
	}
	host := u.Hostname()
	if host == "" {
		return errors.New("the URL has no host")
	}
	if strings.ContainsAny(host, "%\\ \t") {
		return fmt.Errorf("host %q is malformed", host)
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	pn, err := strconv.ParseUint(port, 10, 16)
	if err != nil || pn == 0 {
		return fmt.Errorf("port %q is not valid", port)
	}
	if a, ok := parseHostIP(host); ok {
		if !g.permitted(netip.AddrPortFrom(a, uint16(pn))) {
			return fmt.Errorf("%w: %s is %s", ErrBlockedAddress, host, describeAddr(a))
		}
		return nil
	}
	if strings.HasPrefix(u.Host, "[") {
		return fmt.Errorf("host %q is malformed", u.Host)
	}
	if blockedName(host) {
		return fmt.Errorf("%w: %s names this machine or an internal service", ErrBlockedAddress, host)
	}
	addrs, err := g.resolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return fmt.Errorf("looking up %s: %w", host, err)
	}
	for _, a := range addrs {
		if !g.permitted(netip.AddrPortFrom(a, uint16(pn))) {
			return fmt.Errorf("%w: %s resolves to %s (%s)", ErrBlockedAddress, host, a, describeAddr(a))
		}
	}
	return nil
}

// dialContext resolves addr itself, refuses it if any answer is not
// public, and dials the checked addresses only; control checks the
// connected address once more.
func (g *ssrfGuard) dialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	pn, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("port %q: %w", port, err)
	}
	var addrs []netip.Addr
	if a, ok := parseHostIP(host); ok {
		addrs = []netip.Addr{a}
	} else {
		if blockedName(host) {
			return nil, fmt.Errorf("%w: %s names this machine or an internal service", ErrBlockedAddress, host)
		}
		if addrs, err = g.resolver.LookupNetIP(ctx, "ip", host); err != nil {
			return nil, err
		}
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("%s has no addresses", host)
	}
	for _, a := range addrs {
		if !g.permitted(netip.AddrPortFrom(a, uint16(pn))) {
			return nil, fmt.Errorf("%w: %s resolved to %s (%s) when connecting", ErrBlockedAddress, host, a, describeAddr(a))
		}
	}
	var last error
	for _, a := range addrs {
		c, err := g.dialer.DialContext(ctx, network, netip.AddrPortFrom(a, uint16(pn)).String())
		if err == nil {
			return c, nil
		}
		last = err
	}
	return nil, last
}

// control runs on the socket just before connect(2): the last look at the
// address, after every resolution and redirect.
func (g *ssrfGuard) control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: cannot parse %q", ErrBlockedAddress, address)
	}
	if !g.permitted(ap) {
		return fmt.Errorf("%w: refusing to connect to %s (%s)", ErrBlockedAddress, ap, describeAddr(ap.Addr()))
	}
	return nil
}

func describeAddr(a netip.Addr) string {
	u := a.Unmap()
	switch {
	case u.IsLoopback():
		return "loopback"
	case u.IsUnspecified():
		return "unspecified"
	case u.IsPrivate():
		return "a private address"
	case u.IsLinkLocalUnicast():
		return "link-local (cloud metadata lives here)"
	case u.IsMulticast() || u.IsLinkLocalMulticast() || u.IsInterfaceLocalMulticast():
		return "multicast"
	case !publicAddr(a):
		return "not a public address"
	}
	return "public"
}
