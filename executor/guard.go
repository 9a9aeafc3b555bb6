package executor

import (
	"context"
	"net"
	"net/netip"
	"syscall"
	"time"

	"github.com/pattern-dialect/dialect/codes"
)

// specialPrefixes are the address ranges fetch refuses besides those the
// netip predicates name (loopback, private, link-local, multicast,
// unspecified): shared address space, benchmarking, documentation,
// reserved and the IPv6 translation prefixes that embed IPv4 addresses.
var specialPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // TEST-NET-1
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // TEST-NET-2
	netip.MustParsePrefix("203.0.113.0/24"),  // TEST-NET-3
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, and broadcast
	netip.MustParsePrefix("64:ff9b::/96"),    // NAT64
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local NAT64
	netip.MustParsePrefix("2001::/32"),       // Teredo
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("2002::/16"),       // 6to4
	netip.MustParsePrefix("100::/64"),        // discard
	netip.MustParsePrefix("fec0::/10"),       // site-local (deprecated)
}

// IsPublicAddr reports whether fetch may connect to ip by default: not
// loopback, private (RFC 1918, fc00::/7), link-local, multicast,
// unspecified, nor one of the special-purpose ranges above. IPv4-mapped
// IPv6 addresses are judged as the IPv4 address they carry.
func IsPublicAddr(ip netip.Addr) bool {
	ip = ip.Unmap()
	if !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsUnspecified() ||
		ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsInterfaceLocalMulticast() ||
		ip.IsMulticast() {
		return false
	}
	for _, p := range specialPrefixes {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

// guardedDialer returns a DialContext that checks every address it is
// about to connect to, after DNS resolution: a name that resolves to
// 127.0.0.1, or a redirect to a private address, is refused at the socket,
// before a byte is sent. allow decides; nil allows everything.
func guardedDialer(timeout time.Duration, allow func(netip.Addr) bool) func(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}
	if allow != nil {
		d.Control = func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return codes.Wrap(codes.BlockedAddress, err, "refusing to connect to %s", address)
			}
			if !allow(ap.Addr()) {
				return codes.Wrap(codes.BlockedAddress, nil, "refusing to fetch from %s: a private, loopback or otherwise non-public address", ap.Addr().Unmap())
			}
			return nil
		}
	}
	return d.DialContext
}
