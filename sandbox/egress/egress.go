// Package egress is joshbot's one outbound address guard: the rule for
// which addresses something that came from outside (a URL in a tool call
// or a message, an MCP server's URL) may make this program connect to,
// and the dialer, socket hook and HTTP client that enforce it.
//
// The rule is [PublicAddr]: public unicast only. IPv6 forms that carry an
// IPv4 address (IPv4-mapped, NAT64 64:ff9b::/96, 6to4 2002::/16) are
// judged by the IPv4 address inside. Host names that always mean this
// machine or a cloud metadata service ([InternalName]) are refused
// whatever DNS says, and host strings a C resolver reads as IPv4
// (127.1, 2130706433, 0x7f.0.0.1, 0177.0.0.1) are read the same way
// ([ParseHost]) so they cannot slip past as names.
//
// A [Guard] checks three times: a URL up front ([Guard.CheckURL]), every
// name again when dialling ([Guard.DialContext], which connects only to
// the addresses it checked), and the socket's own address just before
// connect(2) ([Control]), after every lookup and redirect, which is what
// defeats DNS rebinding. [Guard.Client] and [Guard.Transport] build an
// HTTP client that ignores proxy settings (a proxy would connect on its
// behalf, unchecked) and re-checks every redirect. Refusals wrap
// [ErrNonPublicAddress].
//
// The package imports only the standard library.
package egress

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ErrNonPublicAddress is wrapped by every refusal of this package: a URL,
// name or connection that would reach an address [PublicAddr] rejects.
// Packages that enforce the policy export it under names of their own, so
// errors.Is matches whichever name the caller knows.
var ErrNonPublicAddress error = NonPublicAddressError{}

// NonPublicAddressError is the type of [ErrNonPublicAddress]. Every value of
// it is equal, so a package that exports the sentinel under a name of its
// own declares it as NonPublicAddressError{} and errors.Is matches either
// name; the compiler lays such a variable out statically, where copying
// ErrNonPublicAddress would cost the importing package init code.
type NonPublicAddressError struct{}

// Error returns "address is not public".
func (NonPublicAddressError) Error() string { return "address is not public" }

// addrTableSet holds the ranges netip's predicates do not already cover.
type addrTableSet struct {
	blocked          []netip.Prefix
	nat64, sixToFour netip.Prefix
}

var (
	addrTablesOnce sync.Once
	addrTablesSet  addrTableSet
)

// addrTables returns the ranges netip's predicates do not already cover.
// They are built on first use, not at init, so a program that never checks
// an address pays nothing for them (and the package has no init code).
func addrTables() *addrTableSet {
	addrTablesOnce.Do(func() { addrTablesSet = buildAddrTables() })
	return &addrTablesSet
}

func buildAddrTables() (t addrTableSet) {
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
}

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
// and check again at connect time ([Control]), since a second lookup may
// answer differently.
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

// ParseHost reads host as an IP address in any form a C resolver's
// inet_aton would accept: dotted quads with fewer than four parts (127.1),
// one 32-bit number (2130706433), hexadecimal (0x7f000001, 0x7f.0.0.1) and
// octal (0177.0.0.1, 017700000001) parts, and IPv6. ok is false for a
// name. A guard must read a host this way before treating it as a name,
// or 0x7f.1 would be looked up in DNS while a client library connects to
// 127.0.0.1.
func ParseHost(host string) (addr netip.Addr, ok bool) {
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

// InternalName reports whether host is a name that always means this
// machine, the local network or a cloud provider's metadata service,
// whatever DNS says: localhost and its variants, metadata,
// metadata.google.internal, instance-data, and anything under .localhost,
// .internal, .local or .home.arpa.
func InternalName(host string) bool {
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

// Control returns a function for [net.Dialer].Control that refuses, just
// before connect(2), any address [PublicAddr] rejects. Checking the
// socket's address, after every name lookup and redirect, is what defeats
// DNS rebinding: the address checked is the one connected to. allow, when
// not nil, admits addresses as if they were public (an operator's explicit
// opt-in, or a test reaching a server on loopback); everything else is
// judged by PublicAddr. An address the function cannot parse is refused.
// Refusals wrap [ErrNonPublicAddress].
//
// A client using it must not use a proxy: the proxy's address, not the
// destination's, would be the one checked.
func Control(allow func(netip.AddrPort) bool) func(network, address string, c syscall.RawConn) error {
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

// Resolver looks up a host's addresses. *net.Resolver implements it; tests
// substitute answers that change between calls, as a rebinding DNS server
// would.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Guard checks and makes outbound connections under [PublicAddr]. The
// zero Guard is ready to use: system resolver, nothing allowed beyond
// public addresses. Its fields are read at every check, so they may be
// set after a client was built, but not while one is in use. A Guard is
// safe for concurrent use.
type Guard struct {
	// Resolver looks up host names, both for the up-front check and at
	// dial time. Nil means net.DefaultResolver.
	Resolver Resolver
	// Allow, when not nil, admits specific addresses as if they were
	// public: an operator's explicit opt-in, or a test reaching a server
	// on loopback. Every other address is judged by PublicAddr. Names
	// InternalName lists are refused before Allow is asked.
	Allow func(netip.AddrPort) bool
	// DialTimeout bounds one connection attempt; zero means 15 seconds.
	DialTimeout time.Duration
	// MaxRedirects is how many redirects Client follows; zero means 5.
	MaxRedirects int
}

func (g *Guard) resolver() Resolver {
	if g.Resolver == nil {
		return net.DefaultResolver
	}
	return g.Resolver
}

func (g *Guard) permitted(ap netip.AddrPort) bool {
	return (g.Allow != nil && g.Allow(ap)) || PublicAddr(ap.Addr())
}

// CheckURL is the up-front check of a URL about to be fetched: http or
// https only, no credentials, a valid port, and a host that is a public
// address or a name all of whose addresses are public. It resolves names
// with the Guard's Resolver. It connects to nothing; the dial-time checks
// still apply, since a second lookup may answer differently.
func (g *Guard) CheckURL(ctx context.Context, u *url.URL) error {
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
	if a, ok := ParseHost(host); ok {
		if !g.permitted(netip.AddrPortFrom(a, uint16(pn))) {
			return fmt.Errorf("%w: %s is %s", ErrNonPublicAddress, host, DescribeAddr(a))
		}
		return nil
	}
	if strings.HasPrefix(u.Host, "[") {
		return fmt.Errorf("host %q is malformed", u.Host)
	}
	if InternalName(host) {
		return fmt.Errorf("%w: %s names this machine or an internal service", ErrNonPublicAddress, host)
	}
	addrs, err := g.resolver().LookupNetIP(ctx, "ip", host)
	if err != nil {
		return fmt.Errorf("looking up %s: %w", host, err)
	}
	for _, a := range addrs {
		if !g.permitted(netip.AddrPortFrom(a, uint16(pn))) {
			return fmt.Errorf("%w: %s resolves to %s (%s)", ErrNonPublicAddress, host, a, DescribeAddr(a))
		}
	}
	return nil
}

// DialContext resolves addr itself, refuses it if any answer is not
// public, and dials only the addresses it checked, through a dialer whose
// [Control] hook checks the connected address once more. It has the
// signature of [net.Dialer.DialContext] and [http.Transport.DialContext].
func (g *Guard) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	pn, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("port %q: %w", port, err)
	}
	var addrs []netip.Addr
	if a, ok := ParseHost(host); ok {
		addrs = []netip.Addr{a}
	} else {
		if InternalName(host) {
			return nil, fmt.Errorf("%w: %s names this machine or an internal service", ErrNonPublicAddress, host)
		}
		if addrs, err = g.resolver().LookupNetIP(ctx, "ip", host); err != nil {
			return nil, err
		}
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("%s has no addresses", host)
	}
	for _, a := range addrs {
		if !g.permitted(netip.AddrPortFrom(a, uint16(pn))) {
			return nil, fmt.Errorf("%w: %s resolved to %s (%s) when connecting", ErrNonPublicAddress, host, a, DescribeAddr(a))
		}
	}
	timeout := g.DialTimeout
	if timeout <= 0 {
		timeout = 15 * time.Second
	}
	d := net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second, Control: g.Control}
	var last error
	for _, a := range addrs {
		c, err := d.DialContext(ctx, network, netip.AddrPortFrom(a, uint16(pn)).String())
		if err == nil {
			return c, nil
		}
		last = err
	}
	return nil, last
}

// Control is [Control] with the Guard's Allow, read at each connection:
// the last look at the address, on the socket just before connect(2).
func (g *Guard) Control(network, address string, c syscall.RawConn) error {
	return Control(g.Allow)(network, address, c)
}

// Transport returns a new [http.Transport] that connects only through
// [Guard.DialContext] and never through a proxy, whatever HTTP_PROXY
// says: a proxy would make the connection, and its address is not the one
// checked. The caller may adjust its timeouts and pool sizes, but must
// not set Proxy, DialContext, Dial or DialTLSContext.
func (g *Guard) Transport() *http.Transport {
	return &http.Transport{
		Proxy:                 nil,
		DialContext:           g.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          10,
		IdleConnTimeout:       30 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
}

// CheckRedirect is an [http.Client].CheckRedirect that stops after
// MaxRedirects and runs [Guard.CheckURL] on every redirect's target, so a
// redirect to another scheme, to credentials or to a private address is
// refused before any connection.
func (g *Guard) CheckRedirect(req *http.Request, via []*http.Request) error {
	max := g.MaxRedirects
	if max <= 0 {
		max = 5
	}
	if len(via) >= max {
		return fmt.Errorf("stopped after %d redirects", max)
	}
	if err := g.CheckURL(req.Context(), req.URL); err != nil {
		return fmt.Errorf("redirect to %s refused: %w", req.URL.Redacted(), err)
	}
	return nil
}

// Client returns an HTTP client using [Guard.Transport] and
// [Guard.CheckRedirect]. timeout bounds each whole request, redirects
// included; zero means no bound beyond the request's context.
func (g *Guard) Client(timeout time.Duration) *http.Client {
	return &http.Client{Timeout: timeout, Transport: g.Transport(), CheckRedirect: g.CheckRedirect}
}
