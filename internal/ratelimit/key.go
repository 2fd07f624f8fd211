package ratelimit

import "net/netip"

// Key is what a client is limited by: its IPv4 address, or the /64 network
// of its IPv6 address — one host usually holds a whole /64, so keying by the
// full address would give it 2^64 allowances. Anything that is not an
// address is its own key.
func Key(addr string) string {
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return addr
	}
	a = a.Unmap()
	if a.Is4() {
		return a.String()
	}
	p, err := a.WithZone("").Prefix(64)
	if err != nil {
		return addr
	}
	return p.String()
}
