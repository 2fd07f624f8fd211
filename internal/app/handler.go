package app

import (
	"log/slog"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"hush/internal/api"
	"hush/internal/httpx"
	"hush/internal/metrics"
	"hush/internal/ratelimit"
)

// edge is what wraps every route of the public listener: the request log,
// metrics, the baseline security headers and the per-IP request rate limit.
type edge struct {
	log     *slog.Logger
	metrics *metrics.Metrics // nil when HUSH_METRICS_ADDR is unset
	limiter *ratelimit.Limiter
	trusted []netip.Prefix
	hsts    bool     // the base URL is https
	cors    []string // origins whose pages may call the API (api.CORS); nil: none
}

// wrap returns next behind the edge middleware, outermost first: logging
// and metrics see every response; every route after it sees the canonical
// path; and the API's CORS headers are on every API response, 429s
// included.
func (e *edge) wrap(next http.Handler) http.Handler {
	return e.observe(httpx.Baseline(httpx.CleanPath(healthOnly(api.CORS(e.cors, e.limit(next)))), e.hsts))
}

// limit refuses a client over its request allowance: the API's JSON 429 on
// /api/, a plain page elsewhere, both with Retry-After. Health checks (/up
// too) and static assets are not counted. A client is its address, an IPv6
// client its /64 (ratelimit.Key).
func (e *edge) limit(next http.Handler) http.Handler {
	if !e.limiter.Enabled() {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if p == "/healthz" || p == "/readyz" || p == "/up" || strings.HasPrefix(p, "/static/") {
			next.ServeHTTP(w, r)
			return
		}
		ok, retry := e.limiter.Allow(ratelimit.Key(httpx.ClientIP(r, e.trusted)))
		if ok {
			next.ServeHTTP(w, r)
			return
		}
		e.metrics.RateLimited()
		if strings.HasPrefix(p, "/api/") {
			api.TooManyRequests(w, retry)
			return
		}
		secs := max(1, int((retry+time.Second-1)/time.Second))
		h := w.Header()
		h.Set("Retry-After", strconv.Itoa(secs))
		h.Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusTooManyRequests)
		w.Write([]byte("Too many requests. Please wait " + strconv.Itoa(secs) + " seconds and try again.\n"))
	})
}

// observe logs one line per request (method, route, path, status,
// duration, client IP) and records it in the metrics. The route is the
// pattern its router matched (httpx.Mux labels the request); the path is
// logged with the token redacted, and never the query string (it may carry
// a passphrase).
func (e *edge) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		r, pattern := httpx.WithRoute(r)
		next.ServeHTTP(rec, r)
		if rec.status == 0 {
			rec.status = http.StatusOK
		}
		d := time.Since(start)
		logged := e.log.Enabled(r.Context(), slog.LevelInfo)
		if e.metrics == nil && !logged {
			return
		}
		route := routeLabel(*pattern, rec.status)
		e.metrics.Request(route, rec.status, d)
		if !logged {
			return
		}
		path := httpx.RedactPath(r.URL.Path)
		if route == routeUnmatched || route == routeLimited {
			path = httpx.RedactUnmatched(r.URL.Path)
		}
		e.log.Info("request", "method", methodLabel(r.Method), "route", route, "path", path,
			"status", rec.status, "duration_ms", float64(d.Microseconds())/1000,
			"client_ip", httpx.ClientIP(r, e.trusted))
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

// Route labels of requests that no route took.
const (
	routeUnmatched = "unmatched"    // no route, or only a catch-all (404, 405)
	routeLimited   = "rate_limited" // refused before routing
)

// routeLabel names the route of a finished request with a bounded set of
// values: the pattern its router matched, else why there is none. The
// catch-all patterns ("/", "/api/") answer only what matched nothing else.
func routeLabel(pattern string, status int) string {
	switch {
	case pattern != "" && pattern != "/" && pattern != "/api/":
		return pattern
	case status == http.StatusTooManyRequests && pattern == "":
		return routeLimited
	}
	return routeUnmatched
}

// methodLabel names a request method for logs and metric labels: the
// methods HTTP defines, and OTHER for anything a client made up, so that
// made-up methods cannot add label values without bound (docs/decisions.md,
// D25).
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "OTHER"
}
