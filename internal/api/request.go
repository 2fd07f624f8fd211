package api

import (
	"net/http"
	"strconv"

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

// origin is scheme://host for secret URLs (clientip.Origin).
func (s *Server) origin(r *http.Request) string {
	return clientip.Origin(r, s.BaseURL, s.TrustedProxies)
}

// meta is what the audit log records about this request.
func (s *Server) meta(r *http.Request) service.Meta {
	return service.Meta{IP: s.clientIP(r), UserAgent: r.UserAgent(), Referrer: r.Referer()}
}
