package web

import (
	"net/http"
	"strconv"

	"hush/internal/clientip"
	"hush/internal/service"
)

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
