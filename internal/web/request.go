package web

import (
	"net/http"
	"net/netip"
	"strconv"
	"strings"

	"hush/internal/clientip"
	"hush/internal/service"
)

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

// pageParam reads ?page= leniently: anything outside 1..MaxPage is page 1.
func pageParam(r *http.Request) int {
	n, err := strconv.Atoi(r.URL.Query().Get("page"))
	if err != nil || n < 1 || n > service.MaxPage {
		return 1
	}
	return n
}

// maxForm bounds a form body: a text payload is at most 1 MiB characters.
const maxForm = 5 << 20

// parseForm reads a bounded urlencoded form.
func parseForm(w http.ResponseWriter, r *http.Request) error {
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	return r.ParseForm()
}
