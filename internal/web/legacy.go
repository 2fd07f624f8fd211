package web

import (
	"net/http"

	"hush/internal/httpx"
)

// The addresses of Password Pusher's pages that an operator's existing
// links and bookmarks use lead to Hush's pages with a permanent redirect,
// as Password Pusher redirects them itself (docs/decisions.md, D31).

// apiTokens serves GET /api_tokens: Password Pusher's old address of the
// API token page, under the request's prefix, if it had one.
func (s *Server) apiTokens(w http.ResponseWriter, r *http.Request) error {
	http.Redirect(w, r, langPath(r, "/users/token"), http.StatusMovedPermanently)
	return nil
}

// fallback answers what no route took: an old page address of a secret
// link (/f/<token>, /r/<token>, /<locale>/p/<token> …, httpx.LegacyPage)
// is redirected to its page; anything else is not found.
func (s *Server) fallback(w http.ResponseWriter, r *http.Request) error {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		if to, route, ok := httpx.LegacyPage(r.URL.Path); ok {
			httpx.SetRoute(r, route)
			// Under a shipped language's prefix (/de/f/<token>), the
			// prefix stays.
			http.Redirect(w, r, langPath(r, to), http.StatusMovedPermanently)
			return nil
		}
	}
	return s.notFound(w, r)
}
