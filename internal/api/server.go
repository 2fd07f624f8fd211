// Package api serves the Password Pusher compatible JSON API: v2, and the
// legacy v1 JSON paths (see Legacy). It translates HTTP to the service and
// back; every rule lives in the service.
package api

import (
	"log/slog"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"hush/internal/httpx"
	"hush/internal/push"
	"hush/internal/service"
)

// Server serves the API. Build it with New.
type Server struct {
	svc     *service.Service
	baseURL string // fixed origin for secret URLs; "" = from the request
	trusted []netip.Prefix
	maxBody int64
	version string // application_version
	log     *slog.Logger
	// readTimeout is the server's read timeout, which an upload's body
	// must keep pace with (httpx.Pace).
	readTimeout time.Duration
}

// Options configure New.
type Options struct {
	Service        *service.Service
	BaseURL        string
	TrustedProxies []netip.Prefix
	MaxBody        int64 // largest JSON or form body in bytes
	Version        string
	Log            *slog.Logger  // nil: discard
	ReadTimeout    time.Duration // the server's read timeout; 0: 60 s
}

// New returns the API server.
func New(o Options) *Server {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.ReadTimeout <= 0 {
		o.ReadTimeout = 60 * time.Second
	}
	return &Server{svc: o.Service, baseURL: o.BaseURL, trusted: o.TrustedProxies, maxBody: o.MaxBody,
		version: o.Version, log: o.Log, readTimeout: o.ReadTimeout}
}

// APIVersion is the version of the v2 API that Hush speaks.
const APIVersion = "2.1"

// Handler returns the routes of the API, with the JSON fallbacks for
// unmatched paths and methods under /api/.
func (s *Server) Handler() http.Handler {
	mux := httpx.NewMux()
	mux.Handle("GET /api/v2/version", s.handle(s.versionV2))
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
	mux.Handle("POST /api/v2/pushes/{token}/notify_emails", s.handle(s.notifyEmails))
	mux.Handle("GET /api/v2/files/{token}/{name}", s.handle(s.download))
	mux.Handle("GET /api/v2/files/{token}", s.handle(s.download))
	mux.Handle("GET /api/v2/webhooks", s.handle(s.listWebhooks))
	mux.Handle("POST /api/v2/webhooks", s.handle(s.createWebhook))
	mux.Handle("GET /api/v2/webhooks/{id}", s.handle(s.showWebhook))
	mux.Handle("PATCH /api/v2/webhooks/{id}", s.handle(s.updateWebhook))
	mux.Handle("PUT /api/v2/webhooks/{id}", s.handle(s.updateWebhook))
	mux.Handle("DELETE /api/v2/webhooks/{id}", s.handle(s.deleteWebhook))
	mux.Handle("GET /api/v2/webhooks/{id}/deliveries", s.handle(s.webhookDeliveries))
	mux.Handle("POST /api/v2/webhooks/{id}/deliveries/{message}/redeliver", s.handle(s.redeliver))
	mux.Handle("/api/", s.handle(func(w http.ResponseWriter, r *http.Request) error {
		return fallback(mux.ServeMux, w, r)
	}))
	return stripJSONSuffix(mux.ServeMux, mux)
}

// handle adapts a handler that returns an error to http.Handler.
func (s *Server) handle(fn func(http.ResponseWriter, *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := fn(w, r); err != nil {
			s.writeError(w, r, err)
		}
	})
}

// methodNotAllowed writes the API's 405 body.
func methodNotAllowed(w http.ResponseWriter) {
	writeJSON(w, http.StatusMethodNotAllowed, errorBody{"Method Not Allowed"})
}

// stripJSONSuffix lets every v2 path take an optional ".json" suffix, and
// refuses HEAD on push and file paths so that it can never count a view,
// with the methods mux has for the path in Allow. A last segment that is
// "." or ".." without its suffix names nothing: 404.
func stripJSONSuffix(mux *http.ServeMux, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/api/v2/") && strings.HasSuffix(r.URL.Path, ".json") {
			u := *r.URL
			u.Path = strings.TrimSuffix(u.Path, ".json")
			if dots := u.Path[strings.LastIndexByte(u.Path, '/')+1:]; dots == "." || dots == ".." {
				// The router would redirect this segment (.../..json)
				// in HTML, to a path the client did not ask for.
				writeJSON(w, http.StatusNotFound, errorBody{"Not Found"})
				return
			}
			u.RawPath = strings.TrimSuffix(u.RawPath, ".json")
			r2 := *r
			r2.URL = &u
			r = &r2
		}
		if r.Method == http.MethodHead && (strings.HasPrefix(r.URL.Path, "/api/v2/pushes") || strings.HasPrefix(r.URL.Path, "/api/v2/files")) {
			// A path no method has goes on to the mux's 404.
			if allowed := allowedMethods(mux, r); allowed != "" && httpx.RefuseHEAD(w, r, allowed, methodNotAllowed) {
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// allowedMethods lists the methods mux serves r's path with, for Allow;
// "" when it serves none.
func allowedMethods(mux *http.ServeMux, r *http.Request) string {
	var allowed []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPatch, http.MethodPut, http.MethodDelete} {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := mux.Handler(probe); pattern != "" && pattern != "/api/" {
			allowed = append(allowed, m)
		}
	}
	return strings.Join(allowed, ", ")
}

// fallback answers an unmatched /api/ request: 405 with Allow when the path
// exists under another method, else 404.
func fallback(mux *http.ServeMux, w http.ResponseWriter, r *http.Request) error {
	if allowed := allowedMethods(mux, r); allowed != "" {
		w.Header().Set("Allow", allowed)
		methodNotAllowed(w)
		return nil
	}
	writeJSON(w, http.StatusNotFound, errorBody{"Not Found"})
	return nil
}

// msgTooManyRequests is the body of the request rate limit's 429.
const msgTooManyRequests = "Too many requests. Please retry later."

// TooManyRequests answers an API request refused by the request rate
// limit: 429 with Retry-After and the API's JSON error body.
func TooManyRequests(w http.ResponseWriter, retry time.Duration) {
	w.Header().Set("Retry-After", strconv.Itoa(max(1, int((retry+time.Second-1)/time.Second))))
	writeJSON(w, http.StatusTooManyRequests, errorBody{msgTooManyRequests})
}

// origin is scheme://host for secret URLs (httpx.Origin).
func (s *Server) origin(r *http.Request) string { return httpx.Origin(r, s.baseURL, s.trusted) }

// meta is what the audit log records about this request.
func (s *Server) meta(r *http.Request) push.Meta { return httpx.Meta(r, s.trusted) }
