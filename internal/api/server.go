// Package api serves the Password Pusher compatible JSON API: v2, and the
// legacy v1 JSON paths (see Legacy).
package api

import (
	"log/slog"
	"net/http"
	"net/netip"
	"strings"

	"hush/internal/service"
)

// Server holds what the API handlers need. Build it with its fields set, then
// call Handler.
type Server struct {
	Service        *service.Service
	BaseURL        string // fixed origin for secret URLs; "" = from the request
	TrustedProxies []netip.Prefix
	MaxBody        int64
	Version        string // application_version
	Log            *slog.Logger
}

// APIVersion is the version of the v2 API that Hush speaks.
const APIVersion = "2.1"

// Handler returns the routes of the API, with the JSON fallbacks for
// unmatched paths and methods under /api/.
func (s *Server) Handler() http.Handler {
	if s.Log == nil {
		s.Log = slog.New(slog.DiscardHandler)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /api/v2/version", s.handle(s.version))
	mux.Handle("GET /api/v2/openapi", s.handle(s.openapi)) // also .json
	mux.Handle("GET /api/v1/version", s.handle(s.versionV1))
	mux.Handle("GET /api/v1/version.json", s.handle(s.versionV1))
	mux.Handle("POST /api/v2/pushes", s.handle(s.create))
	mux.Handle("GET /api/v2/pushes/active", s.handle(s.listActive))
	mux.Handle("GET /api/v2/pushes/expired", s.handle(s.listExpired))
	mux.Handle("GET /api/v2/pushes/{token}", s.handle(s.retrieve))
	mux.Handle("DELETE /api/v2/pushes/{token}", s.handle(s.expire))
	mux.Handle("GET /api/v2/pushes/{token}/preview", s.handle(s.preview))
	mux.Handle("GET /api/v2/pushes/{token}/audit", s.handle(s.audit))
	mux.Handle("GET /api/v2/files/{token}/{name}", s.handle(s.download))
	mux.Handle("GET /api/v2/files/{token}", s.handle(s.download))
	mux.Handle("/api/", s.handle(func(w http.ResponseWriter, r *http.Request) error {
		return fallback(mux, w, r)
	}))
	return commonHeaders(stripJSONSuffix(mux))
}

// handle adapts a handler that returns an error to http.Handler.
func (s *Server) handle(fn func(http.ResponseWriter, *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := fn(w, r); err != nil {
			s.writeError(w, r, err)
		}
	})
}

// commonHeaders marks every API response as JSON that is never cached or indexed.
func commonHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Cache-Control", "no-store")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Robots-Tag", "noindex, nofollow")
		h.Set("X-Content-Type-Options", "nosniff")
		next.ServeHTTP(w, r)
	})
}

// stripJSONSuffix lets every v2 path take an optional ".json" suffix, and
// refuses HEAD on push paths so that it can never count a view (D15).
func stripJSONSuffix(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead && (strings.HasPrefix(r.URL.Path, "/api/v2/pushes") || strings.HasPrefix(r.URL.Path, "/api/v2/files")) {
			w.Header().Set("Allow", "GET, DELETE")
			writeJSON(w, http.StatusMethodNotAllowed, errorBody{"Method Not Allowed"})
			return
		}
		if strings.HasPrefix(r.URL.Path, "/api/v2/") && strings.HasSuffix(r.URL.Path, ".json") {
			u := *r.URL
			u.Path = strings.TrimSuffix(u.Path, ".json")
			u.RawPath = strings.TrimSuffix(u.RawPath, ".json")
			r2 := *r
			r2.URL = &u
			r = &r2
		}
		next.ServeHTTP(w, r)
	})
}

// fallback answers an unmatched /api/ request: 405 with Allow when the path
// exists under another method, else 404.
func fallback(mux *http.ServeMux, w http.ResponseWriter, r *http.Request) error {
	var allowed []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodDelete} {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := mux.Handler(probe); pattern != "" && pattern != "/api/" {
			allowed = append(allowed, m)
		}
	}
	if len(allowed) > 0 {
		w.Header().Set("Allow", strings.Join(allowed, ", "))
		writeJSON(w, http.StatusMethodNotAllowed, errorBody{"Method Not Allowed"})
		return nil
	}
	writeJSON(w, http.StatusNotFound, errorBody{"Not Found"})
	return nil
}
