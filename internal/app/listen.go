package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"strings"
	"time"

	"hush/internal/config"
	"hush/internal/metrics"
	"hush/internal/ratelimit"
)

// newMetrics returns the metrics registry, or nil when no metrics listener
// is configured (nothing is then recorded).
func newMetrics(cfg *config.Config) *metrics.Metrics {
	if cfg.Hardening.MetricsAddr == "" {
		return nil
	}
	return metrics.New()
}

// newHTTPServer builds the public server: the edge middleware around the
// routes, the timeouts that cut slow clients, and the bounds of open
// connections (its listener must pass through the returned limiter).
func newHTTPServer(cfg *config.Config, log *slog.Logger, met *metrics.Metrics, routes http.Handler) (*http.Server, *connLimiter) {
	h := cfg.Hardening
	conns := newConnLimiter(h.MaxConns, h.MaxConnsPerClient, cfg.TrustedProxies)
	conns.shed, conns.refused = met.ConnShed, met.ConnRefused
	e := &edge{
		log:     log,
		metrics: met,
		limiter: ratelimit.New(h.RatePerMinute, h.RatePerSecond, nil),
		trusted: cfg.TrustedProxies,
		hsts:    strings.HasPrefix(cfg.BaseURL, "https://"),
		cors:    cfg.CORSOrigins,
	}
	return &http.Server{
		Handler:           e.wrap(routes),
		ConnState:         conns.connState,
		ConnContext:       connContext,
		ReadHeaderTimeout: h.ReadHeaderTimeout,
		ReadTimeout:       h.ReadTimeout,
		WriteTimeout:      h.WriteTimeout,
		IdleTimeout:       h.IdleTimeout,
		MaxHeaderBytes:    h.MaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}, conns
}

// serveMetrics starts the /metrics listener on HUSH_METRICS_ADDR, apart
// from the public port, and returns the function that stops it.
func serveMetrics(cfg *config.Config, log *slog.Logger, met *metrics.Metrics) (stop func(), err error) {
	if met == nil {
		return func() {}, nil
	}
	ln, err := net.Listen("tcp", cfg.Hardening.MetricsAddr)
	if err != nil {
		return nil, fmt.Errorf("metrics listener on %s: %w", cfg.Hardening.MetricsAddr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", met.Handler())
	if cfg.Hardening.Pprof {
		mux.HandleFunc("GET /debug/pprof/", pprof.Index)
		mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute,
		WriteTimeout: time.Minute, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelDebug)}
	log.Info("metrics listening", "addr", ln.Addr().String())
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics listener failed", "err", err)
		}
	}()
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}, nil
}
