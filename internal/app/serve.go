package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"hush/internal/api"
	"hush/internal/config"
	"hush/internal/metrics"
	"hush/internal/secure"
	"hush/internal/service"
	"hush/internal/web"
)

// serve runs the HTTP service until ctx is cancelled, then shuts down gracefully.
func (e *env) serve(ctx context.Context, args []string) error {
	cfg, err := config.Load(args, e.getenv)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(e.stdout, config.Usage())
		return nil
	}
	if err != nil {
		return err
	}
	log := newLogger(e.stderr, cfg.LogFormat, cfg.LogLevel)
	keys, st, err := OpenKeyed(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer st.Close()

	files, err := openFileStore(ctx, cfg, log)
	if err != nil {
		return err
	}
	svc := service.New(st, keys, secure.DefaultArgon(), cfg.Push, nil)
	svc.Files = files
	svc.MaxFileSize, svc.MaxPushSize = cfg.MaxFileSize, cfg.MaxPushSize
	met := newMetrics(cfg)
	svc.Observe = met.PushEvent
	apiServer := &api.Server{
		Service:        svc,
		BaseURL:        cfg.BaseURL,
		TrustedProxies: cfg.TrustedProxies,
		MaxBody:        cfg.MaxJSONBody,
		Version:        Version,
		Log:            log,
	}
	webServer := web.New(web.Options{
		Service:        svc,
		BaseURL:        cfg.BaseURL,
		TrustedProxies: cfg.TrustedProxies,
		DisableSignups: cfg.DisableSignups,
		DisableLogins:  cfg.DisableLogins,
		Log:            log,
	})
	mux := http.NewServeMux()
	mux.Handle("/api/", apiServer.Handler())
	mux.Handle("/", webServer.Handler())
	mux.Handle("GET /help/api", apiServer.HelpHandler())
	mux.HandleFunc("GET /healthz", healthz)
	mux.HandleFunc("GET /readyz", readyz(st, files))
	// The legacy v1 JSON paths (/p.json, /p/<token>.json …) are taken before
	// the mux; every other path goes to it.
	srv := newHTTPServer(cfg, log, met, apiServer.Legacy(mux))
	stopMetrics, err := serveMetrics(cfg, log, met)
	if err != nil {
		return err
	}
	defer stopMetrics()
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	log.Info("listening", "addr", ln.Addr().String(), "data_dir", cfg.DataDir, "version", Version)

	sweepCtx, stopSweep := context.WithCancel(ctx)
	sweepDone := make(chan struct{})
	go func() {
		defer close(sweepDone)
		sessionsDone := make(chan struct{})
		go func() { defer close(sessionsDone); webServer.RunCleanup(sweepCtx, cfg.SweepInterval) }()
		sweepLoop(sweepCtx, svc, cfg, log, met)
		<-sessionsDone
	}()

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		stopSweep()
		<-sweepDone
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down")
	shutCtx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	err = srv.Shutdown(shutCtx)
	stopSweep()
	<-sweepDone
	if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	log.Info("stopped")
	return nil
}

// sweepLoop expires and purges pushes every cfg.SweepInterval.
func sweepLoop(ctx context.Context, svc *service.Service, cfg *config.Config, log *slog.Logger, met *metrics.Metrics) {
	t := time.NewTicker(cfg.SweepInterval)
	defer t.Stop()
	for {
		res, err := svc.Sweep(ctx, cfg.PurgeAfter)
		if ctx.Err() == nil {
			met.Sweep(err, res.Expired, res.Deleted, res.FilesPurged, res.OrphansFound)
		}
		switch {
		case err != nil && ctx.Err() == nil:
			log.Error("sweep failed", "err", err)
		case res.Expired > 0 || res.Deleted > 0 || res.FilesPurged > 0 || res.OrphansFound > 0:
			log.Info("swept pushes", "expired", res.Expired, "deleted", res.Deleted,
				"files_purged", res.FilesPurged, "orphans_deleted", res.OrphansFound)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
