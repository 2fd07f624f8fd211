package api

import (
	"net/http"
	"net/netip"
	"strconv"
	"strings"

	"hush/internal/clientip"
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

// clientIP is the peer address, or, behind a trusted proxy, the address it
// forwarded (clientip.Resolve: the rule shared with the rate limiter).
func (s *Server) clientIP(r *http.Request) string {
	return clientip.Resolve(r, s.TrustedProxies)
}

func (s *Server) trusted(a netip.Addr) bool { return clientip.Trusted(s.TrustedProxies, a) }

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
