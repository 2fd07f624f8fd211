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
	keys, err := loadKeys(cfg, log)
	if err != nil {
		return err
	}
	st, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := checkKey(ctx, st, keys); err != nil {
		return err
	}

	files, err := openFileStore(ctx, cfg, log)
	if err != nil {
		return err
	}
	svc := service.New(st, keys, secure.DefaultArgon(), cfg.Push, nil)
	svc.Files = files
	svc.MaxFileSize, svc.MaxPushSize = cfg.MaxFileSize, cfg.MaxPushSize
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
	srv := &http.Server{
		// The legacy v1 JSON paths (/p.json, /p/<token>.json …) are taken
		// before the mux; every other path goes to it.
		Handler:           accessLog(log, apiServer.Legacy(mux)),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
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
		sweepLoop(sweepCtx, svc, cfg, log)
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
func sweepLoop(ctx context.Context, svc *service.Service, cfg *config.Config, log *slog.Logger) {
	t := time.NewTicker(cfg.SweepInterval)
	defer t.Stop()
	for {
		res, err := svc.Sweep(ctx, cfg.PurgeAfter)
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

// accessLog logs one line per request: method, path with the token hidden,
// status and duration. Never the query string (it may carry a passphrase).
func accessLog(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		log.Info("request", "method", r.Method, "path", redactPath(r.URL.Path), "status", rec.status,
			"duration_ms", float64(time.Since(start).Microseconds())/1000)
	})
}
