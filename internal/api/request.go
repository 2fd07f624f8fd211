package api

import (
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"

	"hush/internal/service"
)

// pageParam parses `page` (D6): plain decimal 1..200, default 1.
func pageParam(r *http.Request) (int, error) {
	vals, ok := r.URL.Query()["page"]
	if !ok {
		return 1, nil
	}
	v := vals[0]
	if len(v) == 0 || len(v) > 3 || v[0] == '0' {
		return 0, badRequest(msgBadPage)
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, badRequest(msgBadPage)
		}
	}
	n, _ := strconv.Atoi(v)
	if n < 1 || n > service.MaxPage {
		return 0, badRequest(msgBadPage)
	}
	return n, nil
}

// clientIP is the peer address, or, when the peer is a trusted proxy, the
// right-most X-Forwarded-For address that is not itself a trusted proxy.
func (s *Server) clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	peer, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	peer = peer.Unmap()
	if !s.trusted(peer) {
		return peer.String()
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break
		}
		a = a.Unmap()
		if !s.trusted(a) {
			return a.String()
		}
		peer = a
	}
	return peer.String()
}

func (s *Server) trusted(a netip.Addr) bool {
	for _, p := range s.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// origin is scheme://host for secret URLs: the configured base URL, else the
// request's (forwarded headers honoured only from trusted proxies).
func (s *Server) origin(r *http.Request) string {
	if s.BaseURL != "" {
		return s.BaseURL
	}
	scheme, host := "http", r.Host
	if r.TLS != nil {
		scheme = "https"
	}
	if peer, err := netip.ParseAddrPort(r.RemoteAddr); err == nil && s.trusted(peer.Addr().Unmap()) {
		if p := r.Header.Get("X-Forwarded-Proto"); p == "http" || p == "https" {
			scheme = p
		}
		if h := r.Header.Get("X-Forwarded-Host"); h != "" && !strings.ContainsAny(h, "/ ,") {
			host = h
		}
	}
	return scheme + "://" + host
}

// meta is what the audit log records about this request.
func (s *Server) meta(r *http.Request) service.Meta {
	return service.Meta{IP: s.clientIP(r), UserAgent: r.UserAgent(), Referrer: r.Referer()}
}
