package sandbox

import (
	"net/netip"
	"syscall"

	"github.com/joshbot/joshbot/sandbox/egress"
)

// ErrNonPublicAddress is [egress.ErrNonPublicAddress].
//
// Deprecated: use package egress; this name stays only until the callers
// merged today have moved, and is removed before v1.
var ErrNonPublicAddress error = egress.NonPublicAddressError{}

// PublicAddr is [egress.PublicAddr].
//
// Deprecated: use package egress; this name stays only until the callers
// merged today have moved, and is removed before v1.
func PublicAddr(a netip.Addr) bool { return egress.PublicAddr(a) }

// DescribeAddr is [egress.DescribeAddr].
//
// Deprecated: use package egress; this name stays only until the callers
// merged today have moved, and is removed before v1.
func DescribeAddr(a netip.Addr) string { return egress.DescribeAddr(a) }

// DialControl is [egress.Control].
//
// Deprecated: use package egress; this name stays only until the callers
// merged today have moved, and is removed before v1.
func DialControl(allow func(netip.AddrPort) bool) func(network, address string, c syscall.RawConn) error {
	return egress.Control(allow)
}
