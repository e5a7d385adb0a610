package archtest

import (
	"math/rand/v2"
	"net/netip"
	"testing"

	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/sandbox"
)

// The address policy exists twice: sandbox.PublicAddr, which tools and
// mcpclient use, and channels.PublicAddr, a copy the import direction
// forces (channels may import only bus). TestPublicAddrCopiesAgree keeps
// the copy honest: on the named addresses both give the expected verdict,
// and on every edge of every range either one treats specially, every
// IPv6 form that carries those IPv4 edges, and a seeded sample inside
// those ranges, they give the same one.

// namedAddrs are the cases a drifting copy would most likely get wrong.
var namedAddrs = []struct {
	ip     string
	public bool
}{
	{"1.1.1.1", true},
	{"8.8.8.8", true},
	{"2606:4700::1111", true},
	{"::ffff:1.1.1.1", true},
	{"64:ff9b::101:101", true}, // NAT64 of 1.1.1.1
	{"2002:101:101::1", true},  // 6to4 around 1.1.1.1
	{"127.0.0.1", false},
	{"::ffff:127.0.0.1", false},
	{"::ffff:10.0.0.1", false},
	{"::7f00:1", false},                             // IPv4-compatible loopback
	{"64:ff9b::7f00:1", false},                      // NAT64 of loopback
	{"64:ff9b::c0a8:101", false},                    // NAT64 of 192.168.1.1
	{"64:ff9b::a9fe:a9fe", false},                   // NAT64 of cloud metadata
	{"64:ff9b:1::808:808", false},                   // local-use NAT64
	{"2002:a00:1::1", false},                        // 6to4 around 10.0.0.1
	{"2002:a9fe:a9fe::1", false},                    // 6to4 around cloud metadata
	{"2001:0:4136:e378:8000:63bf:3fff:fdd2", false}, // Teredo
	{"2001:0:808:808::1", false},                    // Teredo, public server
	{"fe80::1%eth0", false},                         // zone, link-local
	{"2606:4700::1111%eth0", false},                 // zone on a public address
	{"100.64.0.1", false},                           // carrier-grade NAT
	{"100.127.255.254", false},                      // top of 100.64/10
	{"0.0.0.0", false},
	{"0.1.2.3", false},
	{"224.0.0.1", false},
	{"239.255.255.250", false},
	{"ff02::1", false},
	{"169.254.169.254", false},
	{"fe80::1", false},
	{"fc00::1", false},
	{"fd12:3456::1", false},
	{"fec0::1", false},
	{"198.18.0.1", false},
	{"198.19.255.255", false},
	{"192.0.2.1", false},
	{"198.51.100.1", false},
	{"203.0.113.1", false},
	{"2001:db8::1", false},
	{"3fff::1", false},
	{"255.255.255.255", false},
	{"240.0.0.1", false},
	{"::", false},
	{"::1", false},
}

// edgeRanges are the ranges either copy, or netip's predicates under
// them, treats specially.
var edgeRanges = []string{
	"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
	"192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16", "198.18.0.0/15",
	"198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4", "255.255.255.255/32",
	"::/96", "::ffff:0:0/96", "64:ff9b::/96", "64:ff9b:1::/48", "100::/64", "2001::/32",
	"2001:2::/48", "2001:10::/28", "2001:20::/28", "2001:db8::/32", "2002::/16", "3fff::/20",
	"5f00::/16", "fc00::/7", "fe80::/10", "fec0::/10", "ff00::/8",
}

func TestPublicAddrCopiesAgree(t *testing.T) {
	for _, tt := range namedAddrs {
		a := netip.MustParseAddr(tt.ip)
		s, c := sandbox.PublicAddr(a), channels.PublicAddr(a)
		if s != tt.public || c != tt.public {
			t.Errorf("%s: sandbox says %v, channels says %v, want %v", tt.ip, s, c, tt.public)
		}
	}

	var corpus []netip.Addr
	var v4edges []netip.Addr
	for _, r := range edgeRanges {
		p := netip.MustParsePrefix(r)
		first, last := p.Masked().Addr(), lastAddr(p)
		edges := []netip.Addr{first, first.Next(), last.Prev(), last, first.Prev(), last.Next()}
		for _, a := range edges {
			if !a.IsValid() {
				continue
			}
			corpus = append(corpus, a)
			if a.Is4() {
				v4edges = append(v4edges, a)
			}
		}
	}
	for _, a := range v4edges {
		corpus = append(corpus, carriers(a)...)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b [4]byte
		for i := range b {
			b[i] = byte(rng.UintN(256))
		}
		v4 := netip.AddrFrom4(b)
		corpus = append(corpus, v4)
		corpus = append(corpus, carriers(v4)...)
		p := netip.MustParsePrefix(edgeRanges[rng.IntN(len(edgeRanges))])
		corpus = append(corpus, randomIn(rng, p))
	}
	n := len(corpus)
	for _, a := range corpus[:n] {
		if a.Is6() {
			corpus = append(corpus, a.WithZone("eth0"))
		}
	}

	public, disagree := 0, 0
	for _, a := range corpus {
		s, c := sandbox.PublicAddr(a), channels.PublicAddr(a)
		if s {
			public++
		}
		if s != c {
			disagree++
			if disagree <= 20 {
				t.Errorf("%s: sandbox.PublicAddr = %v, channels.PublicAddr = %v", a, s, c)
			}
		}
	}
	if disagree > 0 {
		t.Fatalf("the copies disagree on %d of %d addresses; make channels/safehttp.go match sandbox/addr.go", disagree, len(corpus))
	}
	// A corpus the rules answer all one way would prove nothing.
	if public == 0 || public == len(corpus) {
		t.Fatalf("%d of %d addresses public: the corpus does not exercise both verdicts", public, len(corpus))
	}
	t.Logf("sandbox and channels agree on %d addresses (%d public)", len(corpus), public)
}

// carriers returns the IPv6 forms that carry v4: mapped, NAT64, 6to4,
// Teredo (client address inverted) and IPv4-compatible.
func carriers(v4 netip.Addr) []netip.Addr {
	b := v4.As4()
	var mapped, nat64, sixToFour, teredo, compat [16]byte
	mapped[10], mapped[11] = 0xff, 0xff
	copy(mapped[12:], b[:])
	copy(nat64[:4], []byte{0, 0x64, 0xff, 0x9b})
	copy(nat64[12:], b[:])
	sixToFour[0], sixToFour[1] = 0x20, 0x02
	copy(sixToFour[2:], b[:])
	sixToFour[15] = 1
	teredo[0], teredo[1] = 0x20, 0x01
	for i, x := range b {
		teredo[12+i] = ^x
	}
	copy(compat[12:], b[:])
	out := make([]netip.Addr, 0, 5)
	for _, x := range [][16]byte{mapped, nat64, sixToFour, teredo, compat} {
		out = append(out, netip.AddrFrom16(x))
	}
	return out
}

// lastAddr is the highest address in p.
func lastAddr(p netip.Prefix) netip.Addr {
	b := p.Masked().Addr().AsSlice()
	for i := p.Bits(); i < len(b)*8; i++ {
		b[i/8] |= 0x80 >> (i % 8)
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}

// randomIn is a random address inside p.
func randomIn(rng *rand.Rand, p netip.Prefix) netip.Addr {
	b := p.Masked().Addr().AsSlice()
	for i := p.Bits(); i < len(b)*8; i++ {
		if rng.UintN(2) == 1 {
			b[i/8] |= 0x80 >> (i % 8)
		}
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}
