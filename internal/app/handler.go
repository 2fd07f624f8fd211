package app

import (
	"log/slog"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"hush/internal/clientip"
	"hush/internal/httpx"
	"hush/internal/metrics"
	"hush/internal/ratelimit"
)

// edge is what wraps every route of the public listener: the request log,
// metrics, security headers and the per-IP request rate limit.
type edge struct {
	log     *slog.Logger
	metrics *metrics.Metrics // nil when HUSH_METRICS_ADDR is unset
	limiter *ratelimit.Limiter
	trusted []netip.Prefix
	hsts    bool // the base URL is https
}

// wrap returns next behind the edge middleware, outermost first: logging
// and metrics see every response, including 429s.
func (e *edge) wrap(next http.Handler) http.Handler {
	return e.observe(e.headers(e.limit(next)))
}

// msgTooManyRequests is the API's 429 body.
const msgTooManyRequests = "Too many requests. Please retry later."

// limit refuses a client over its request allowance: JSON on /api/, a plain
// page elsewhere, both with Retry-After. Health checks and static assets
// are not counted.
func (e *edge) limit(next http.Handler) http.Handler {
	if !e.limiter.Enabled() {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if p == "/healthz" || p == "/readyz" || strings.HasPrefix(p, "/static/") {
			next.ServeHTTP(w, r)
			return
		}
		ok, retry := e.limiter.Allow(ratelimit.Key(clientip.Resolve(r, e.trusted)))
		if ok {
			next.ServeHTTP(w, r)
			return
		}
		e.metrics.RateLimited()
		secs := max(1, int((retry+time.Second-1)/time.Second))
		h := w.Header()
		h.Set("Retry-After", strconv.Itoa(secs))
		if strings.HasPrefix(p, "/api/") {
			h.Set("Content-Type", "application/json; charset=utf-8")
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write([]byte(`{"error":"` + msgTooManyRequests + `"}` + "\n"))
			return
		}
		h.Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusTooManyRequests)
		w.Write([]byte("Too many requests. Please wait " + strconv.Itoa(secs) + " seconds and try again.\n"))
	})
}

// headers sets the security headers of DESIGN §4 on every response,
// /healthz and errors included; the API and the web pages refine them
// (the web CSP, cacheable static assets).
func (e *edge) headers(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Cache-Control", "no-store")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Robots-Tag", "noindex, nofollow")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
		if e.hsts {
			h.Set("Strict-Transport-Security", "max-age=31536000; includeSubDomains")
		}
		next.ServeHTTP(w, r)
	})
}

// observe logs one line per request (method, route, status, duration,
// client IP) and records it in the metrics. Never the query string (it
// may carry a passphrase) nor a token: paths are logged with the token
// replaced by :token.
func (e *edge) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		if rec.status == 0 {
			rec.status = http.StatusOK
		}
		d := time.Since(start)
		logged := e.log.Enabled(r.Context(), slog.LevelInfo)
		if e.metrics == nil && !logged {
			return
		}
		route := routeLabel(r, rec.status)
		e.metrics.Request(route, rec.status, d)
		if !logged {
			return
		}
		path := httpx.RedactPath(r.URL.Path)
		if route == "unmatched" {
			path = httpx.RedactUnmatched(r.URL.Path)
		}
		e.log.Info("request", "method", methodLabel(r.Method), "route", route, "path", path,
			"status", rec.status, "duration_ms", float64(d.Microseconds())/1000,
			"client_ip", clientip.Resolve(r, e.trusted))
	})
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection (flush, deadlines).
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// webRoutes are the fixed paths of the web pages, used as their own labels.
var webRoutes = map[string]bool{"/": true, "/dashboard": true, "/healthz": true, "/readyz": true,
	"/users/sign_up": true, "/users/sign_in": true, "/users/sign_out": true, "/users/token": true,
	"/users/edit": true, "/users/password": true, "/users/delete": true}

// routeLabel names the route of a finished request with a bounded set of
// values: the API's mux pattern (the muxes record it on the request), else
// a known web path shape with the token hidden, else "unmatched".
func routeLabel(r *http.Request, status int) string {
	if p := r.Pattern; p != "" && p != "/" && p != "/api/" {
		return p
	}
	path := r.URL.Path
	switch {
	case status == http.StatusNotFound || status == http.StatusMethodNotAllowed:
		return "unmatched"
	case strings.HasPrefix(path, "/static/"):
		return methodLabel(r.Method) + " /static/"
	case webRoutes[path]:
		return methodLabel(r.Method) + " " + path
	}
	red := httpx.RedactPath(strings.TrimSuffix(path, ".json"))
	for _, shape := range []string{"/p/:token", "/p/:token/r", "/p/:token/passphrase", "/p/:token/expire",
		"/p/:token/preview", "/p/:token/audit", "/api/v2/pushes/:token", "/api/v2/pushes/:token/preview",
		"/api/v2/pushes/:token/audit", "/api/v2/pushes/active", "/api/v2/pushes/expired", "/api/v2/pushes",
		"/api/v2/version"} {
		if red == shape {
			return methodLabel(r.Method) + " " + shape
		}
	}
	if strings.HasPrefix(path, "/api/v2/files/") {
		return methodLabel(r.Method) + " /api/v2/files/:token"
	}
	return "other"
}

// methodLabel names a request method for logs and metric labels: the
// methods HTTP defines, and OTHER for anything a client made up, so that
// made-up methods cannot add label values without bound.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "OTHER"
}
