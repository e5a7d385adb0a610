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
	"syscall"
	"time"

	"github.com/joshbot/joshbot/sandbox"
)

// ErrBlockedAddress marks a URL or connection refused because it leads to
// a loopback, private, link-local or otherwise non-public address. It is
// [sandbox.ErrNonPublicAddress], the sentinel of the policy web_fetch
// applies, so errors.Is matches either name.
var ErrBlockedAddress = sandbox.ErrNonPublicAddress

// Resolver looks up a host's addresses. *net.Resolver implements it; tests
// substitute answers that change between calls, as a rebinding DNS server
// would.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
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
	return g.allowed(ap) || sandbox.PublicAddr(ap.Addr())
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
			return fmt.Errorf("%w: %s is %s", ErrBlockedAddress, host, sandbox.DescribeAddr(a))
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
			return fmt.Errorf("%w: %s resolves to %s (%s)", ErrBlockedAddress, host, a, sandbox.DescribeAddr(a))
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
			return nil, fmt.Errorf("%w: %s resolved to %s (%s) when connecting", ErrBlockedAddress, host, a, sandbox.DescribeAddr(a))
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
// address, after every resolution and redirect. It is sandbox's check with
// the guard's allow hook, read at each dial so a test may set it late.
func (g *ssrfGuard) control(network, address string, c syscall.RawConn) error {
	return sandbox.DialControl(g.allowed)(network, address, c)
}

func (g *ssrfGuard) allowed(ap netip.AddrPort) bool {
	return g.allow != nil && g.allow(ap)
}
