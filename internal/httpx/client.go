package httpx

// Which address a request comes from: the peer, or, behind trusted proxies,
// the address they forwarded. The API, the web pages and the request rate
// limiter share this one rule.

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// ClientIP returns the peer address of r, or, when the peer is a trusted
// proxy, the right-most X-Forwarded-For address that is not itself a trusted
// proxy. An untrusted peer's X-Forwarded-For is ignored.
func ClientIP(r *http.Request, trusted []netip.Prefix) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	peer, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	peer = peer.Unmap()
	if !Trusted(trusted, peer) {
		return peer.String()
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break
		}
		a = a.Unmap()
		if !Trusted(trusted, a) {
			return a.String()
		}
		peer = a
	}
	return peer.String()
}

// Trusted reports whether a lies in one of the trusted prefixes.
func Trusted(trusted []netip.Prefix, a netip.Addr) bool {
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// Origin is scheme://host for the links Hush hands out: baseURL when it is
// set, else the request's own, with X-Forwarded-Proto and X-Forwarded-Host
// honoured only from a trusted proxy.
func Origin(r *http.Request, baseURL string, trusted []netip.Prefix) string {
	if baseURL != "" {
		return baseURL
	}
	scheme, host := "http", r.Host
	if r.TLS != nil {
		scheme = "https"
	}
	if peer, err := netip.ParseAddrPort(r.RemoteAddr); err == nil && Trusted(trusted, peer.Addr().Unmap()) {
		if p := r.Header.Get("X-Forwarded-Proto"); p == "http" || p == "https" {
			scheme = p
		}
		if h := r.Header.Get("X-Forwarded-Host"); h != "" && !strings.ContainsAny(h, "/ ,") {
			host = h
		}
	}
	return scheme + "://" + host
}
