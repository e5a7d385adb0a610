package egress_test

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"testing"

	"github.com/joshbot/joshbot/sandbox/egress"
)

// addrCorpus is the address policy's reference table: every range the
// policy refuses, its edges, the IPv6 forms that carry an IPv4 address,
// and public addresses on both sides of each refused range.
var addrCorpus = []struct {
	ip     string
	public bool
	note   string
}{
	{"1.1.1.1", true, "public"},
	{"8.8.8.8", true, "public"},
	{"93.184.216.34", true, "public"},
	{"2606:4700::1111", true, "public IPv6"},
	{"2606:4700:4700::1111", true, "public IPv6"},
	{"2606:2800:220:1:248:1893:25c8:1946", true, "public IPv6"},
	{"0.0.0.0", false, "unspecified"},
	{"0.1.2.3", false, "this network 0/8"},
	{"0.255.255.255", false, "top of 0/8"},
	{"1.0.0.0", true, "just above 0/8"},
	{"127.0.0.1", false, "loopback"},
	{"127.127.127.127", false, "anywhere in 127/8"},
	{"10.1.2.3", false, "private 10/8"},
	{"172.16.0.1", false, "private 172.16/12"},
	{"172.31.255.255", false, "top of 172.16/12"},
	{"172.32.0.1", true, "just above 172.16/12"},
	{"192.168.1.1", false, "private 192.168/16"},
	{"169.254.169.254", false, "link-local: cloud metadata"},
	{"100.64.0.1", false, "carrier-grade NAT"},
	{"100.127.255.255", false, "top of 100.64/10"},
	{"100.128.0.0", true, "just above 100.64/10"},
	{"100.63.255.255", true, "just below 100.64/10"},
	{"192.0.0.8", false, "IETF protocol assignments"},
	{"192.0.2.1", false, "documentation TEST-NET-1"},
	{"198.51.100.7", false, "documentation TEST-NET-2"},
	{"203.0.113.9", false, "documentation TEST-NET-3"},
	{"192.88.99.1", false, "6to4 relay anycast"},
	{"198.18.0.1", false, "benchmarking"},
	{"198.19.255.255", false, "top of benchmarking"},
	{"198.20.0.1", true, "just above benchmarking"},
	{"224.0.0.1", false, "multicast"},
	{"239.255.255.250", false, "multicast SSDP"},
	{"240.0.0.1", false, "reserved"},
	{"255.255.255.255", false, "broadcast"},
	{"::", false, "IPv6 unspecified"},
	{"::1", false, "IPv6 loopback"},
	{"::7f00:1", false, "IPv4-compatible loopback"},
	{"::808:808", false, "IPv4-compatible, deprecated even around a public address"},
	{"::ffff:127.0.0.1", false, "IPv4-mapped loopback"},
	{"::ffff:10.0.0.1", false, "IPv4-mapped private"},
	{"::ffff:8.8.8.8", true, "IPv4-mapped public"},
	{"fe80::1", false, "IPv6 link-local"},
	{"fc00::1", false, "unique local, fc half"},
	{"fd00::1", false, "unique local, fd half"},
	{"fec0::1", false, "site-local"},
	{"ff02::1", false, "IPv6 multicast"},
	{"ff05::1:3", false, "IPv6 multicast, site scope"},
	{"64:ff9b::7f00:1", false, "NAT64 of loopback"},
	{"64:ff9b::a00:1", false, "NAT64 of 10.0.0.1"},
	{"64:ff9b::a9fe:a9fe", false, "NAT64 of cloud metadata"},
	{"64:ff9b::6440:1", false, "NAT64 of carrier-grade NAT"},
	{"64:ff9b::808:808", true, "NAT64 of 8.8.8.8"},
	{"64:ff9b::5db8:d822", true, "NAT64 of 93.184.216.34"},
	{"64:ff9b:1::808:808", false, "local-use NAT64"},
	{"2002:7f00:1::1", false, "6to4 around loopback"},
	{"2002:c0a8:101::1", false, "6to4 around 192.168.1.1"},
	{"2002:a9fe:a9fe::1", false, "6to4 around cloud metadata"},
	{"2002:808:808::1", true, "6to4 around 8.8.8.8"},
	{"2001:0:4136:e378:8000:63bf:3fff:fdd2", false, "Teredo"},
	{"2001:2::1", false, "IPv6 benchmarking"},
	{"2001:10::1", false, "ORCHID"},
	{"2001:20::1", false, "ORCHIDv2"},
	{"2001:db8::1", false, "IPv6 documentation"},
	{"3fff::1", false, "IPv6 documentation 3fff::/20"},
	{"100::1", false, "discard"},
	{"5f00::1", false, "segment routing SIDs"},
	{"2606:4700::1111%eth0", false, "a zone names a local interface"},
	{"fe80::1%eth0", false, "link-local with a zone"},
}

func TestPublicAddr(t *testing.T) {
	for _, tt := range addrCorpus {
		a := netip.MustParseAddr(tt.ip)
		if got := egress.PublicAddr(a); got != tt.public {
			t.Errorf("PublicAddr(%s) = %v, want %v (%s)", tt.ip, got, tt.public, tt.note)
		}
	}
	if egress.PublicAddr(netip.Addr{}) {
		t.Error("the zero Addr is public")
	}
}

// TestPublicAddrEmbeddedIPv4: every IPv6 form that carries an IPv4
// address gets the IPv4 address's verdict, except the forms refused
// whatever they carry.
func TestPublicAddrEmbeddedIPv4(t *testing.T) {
	for _, tt := range addrCorpus {
		a := netip.MustParseAddr(tt.ip)
		if !a.Is4() {
			continue
		}
		b := a.As4()
		for _, form := range []struct {
			name, ip string
			want     bool
		}{
			{"mapped", "::ffff:" + tt.ip, tt.public},
			{"NAT64", "64:ff9b::" + tt.ip, tt.public},
			{"6to4", fmt.Sprintf("2002:%02x%02x:%02x%02x::1", b[0], b[1], b[2], b[3]), tt.public},
			// Teredo keeps the client's address inverted in the last 32 bits.
			{"Teredo", fmt.Sprintf("2001:0:4136:e378::%02x%02x:%02x%02x", ^b[0], ^b[1], ^b[2], ^b[3]), false},
			{"IPv4-compatible", "::" + tt.ip, false},
		} {
			x := netip.MustParseAddr(form.ip)
			if got := egress.PublicAddr(x); got != form.want {
				t.Errorf("PublicAddr(%s), the %s form of %s = %v, want %v", x, form.name, tt.ip, got, form.want)
			}
		}
	}
}

func TestDescribeAddr(t *testing.T) {
	for _, tt := range []struct{ ip, want string }{
		{"127.0.0.1", "loopback"},
		{"::ffff:127.0.0.1", "loopback"},
		{"::1", "loopback"},
		{"0.0.0.0", "unspecified"},
		{"10.0.0.1", "a private address"},
		{"fd00::1", "a private address"},
		{"169.254.169.254", "link-local (cloud metadata lives here)"},
		{"fe80::1%eth0", "link-local (cloud metadata lives here)"},
		{"224.0.0.1", "multicast"},
		{"100.64.0.1", "not a public address"},
		{"64:ff9b::7f00:1", "not a public address"},
		{"1.1.1.1", "public"},
		{"64:ff9b::808:808", "public"},
	} {
		if got := egress.DescribeAddr(netip.MustParseAddr(tt.ip)); got != tt.want {
			t.Errorf("DescribeAddr(%s) = %q, want %q", tt.ip, got, tt.want)
		}
	}
}

// TestControl connects for real: a listener on loopback is refused at
// the socket, admitted only by an allow function that names it, and never
// sees a connection it should not.
func TestControl(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan struct{}, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- struct{}{}
			c.Close()
		}
	}()
	target := netip.MustParseAddrPort(ln.Addr().String())
	other := netip.AddrPortFrom(target.Addr(), target.Port()+1)

	for _, tt := range []struct {
		name  string
		allow func(netip.AddrPort) bool
		ok    bool
	}{
		{"no allow", nil, false},
		{"allow another port", func(ap netip.AddrPort) bool { return ap == other }, false},
		{"allow the target", func(ap netip.AddrPort) bool { return ap == target }, true},
	} {
		d := net.Dialer{Control: egress.Control(tt.allow)}
		c, err := d.Dial("tcp", target.String())
		if tt.ok {
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			c.Close()
			<-accepted
			continue
		}
		if err == nil {
			c.Close()
			t.Fatalf("%s: connected to %s", tt.name, target)
		}
		if !errors.Is(err, egress.ErrNonPublicAddress) || !strings.Contains(err.Error(), "loopback") {
			t.Fatalf("%s: err = %v, want ErrNonPublicAddress naming loopback", tt.name, err)
		}
	}
	select {
	case <-accepted:
		t.Fatal("a refused dial reached the listener")
	default:
	}

	control := egress.Control(nil)
	for _, addr := range []string{"not an address", "example.com:80", "[::1]"} {
		if err := control("tcp", addr, nil); !errors.Is(err, egress.ErrNonPublicAddress) {
			t.Errorf("control(%q) = %v, want ErrNonPublicAddress", addr, err)
		}
	}
	for _, addr := range []string{"1.1.1.1:443", "[2606:4700::1111]:443"} {
		if err := control("tcp", addr, nil); err != nil {
			t.Errorf("control(%q) = %v, want nil", addr, err)
		}
	}
}

// FuzzPublicAddr: whatever the bytes, a public address is none of the
// kinds netip can name as local, and the mapped form of an IPv4 address
// gets the same answer as the address itself.
func FuzzPublicAddr(f *testing.F) {
	for _, tt := range addrCorpus {
		a := netip.MustParseAddr(tt.ip).WithZone("")
		f.Add(a.AsSlice())
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		a, ok := netip.AddrFromSlice(b)
		if !ok {
			return
		}
		pub := egress.PublicAddr(a)
		u := a.Unmap()
		if pub && (u.IsLoopback() || u.IsPrivate() || u.IsLinkLocalUnicast() || u.IsMulticast() || u.IsUnspecified()) {
			t.Fatalf("%s admitted, but it is %s", a, egress.DescribeAddr(a))
		}
		if a.Is4() && egress.PublicAddr(netip.AddrFrom16(a.As16())) != pub {
			t.Fatalf("%s and its mapped form disagree", a)
		}
		if a.Is6() && egress.PublicAddr(a.WithZone("eth0")) {
			t.Fatalf("%s with a zone admitted", a)
		}
	})
}
