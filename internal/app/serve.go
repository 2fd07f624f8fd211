package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"hush/internal/api"
	"hush/internal/blob"
	"hush/internal/config"
	"hush/internal/httpx"
	"hush/internal/metrics"
	"hush/internal/secure"
	"hush/internal/service"
	"hush/internal/store"
	"hush/internal/web"
	"hush/internal/webhook"
)

// serve runs the HTTP service until ctx is cancelled, then shuts down gracefully.
func (e *env) serve(ctx context.Context, args []string) error {
	read := newSettingsRead(e.getenv)
	cfg, err := config.Load(args, read.get)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(e.stdout, config.Usage())
		return nil
	}
	if err != nil {
		return err
	}
	clock, err := processClock(e.getenv)
	if err != nil {
		return err
	}
	tuneGC(e.getenv, secure.DefaultArgon())
	log := newLogger(e.stderr, cfg.LogFormat, cfg.LogLevel)
	if unused := read.unused(e.environ()); len(unused) > 0 {
		log.Warn("these Password Pusher settings are set but Hush does not support them; they have no effect",
			"settings", strings.Join(unused, " "))
	}
	srv, err := newServer(ctx, cfg, log, clock)
	if err != nil {
		return err
	}
	defer srv.close()
	// What start-up parsed and migrated is garbage now; at five times the
	// live heap (tuneGC) it would sit in memory until the first requests.
	debug.FreeOSMemory()
	// The code and tables only start-up used leave the resident set (D55).
	log.Debug("start-up pages released", "bytes", releaseStartPages())
	return srv.run(ctx)
}

// server is the running program: everything serve builds, ready to run.
type server struct {
	cfg     *config.Config
	log     *slog.Logger
	store   *store.Store
	files   blob.FileStore
	svc     *service.Service
	web     *web.Server
	metrics *metrics.Metrics // nil without HUSH_METRICS_ADDR
	keys    *secure.Keyring
	http    *http.Server
	conns   *connLimiter // the bounds of the public listener's connections
}

// newServer opens the database (migrating it and checking the master key)
// and the file store, and builds the service, the API, the pages and the
// public HTTP server around them. clock is the service's clock; nil is the
// wall clock.
func newServer(ctx context.Context, cfg *config.Config, log *slog.Logger, clock func() time.Time) (*server, error) {
	keys, st, err := OpenKeyed(ctx, cfg, log)
	if err != nil {
		return nil, err
	}
	files, err := openFileStore(ctx, cfg, log)
	if err != nil {
		st.Close()
		return nil, err
	}
	s := &server{cfg: cfg, log: log, store: st, files: files, metrics: newMetrics(cfg), keys: keys}
	mailer, err := newMailer(cfg, log)
	if err != nil {
		st.Close()
		return nil, err
	}
	s.svc = service.New(service.Deps{Store: st, Keys: keys, Argon: secure.DefaultArgon(), Files: files,
		Now: clock, Observe: s.metrics.PushEvent, Log: log, Mail: mailer, Origin: cfg.BaseURL, Deliveries: s.metrics.Delivery,
		Webhooks: webhook.New(webhook.Options{AllowPrivate: cfg.WebhookAllowPrivate}), WebhookAllowPrivate: cfg.WebhookAllowPrivate},
		service.Limits{Settings: cfg.Push, MaxFileSize: cfg.MaxFileSize, MaxPushSize: cfg.MaxPushSize,
			Accounts: service.AccountRules{ConfirmEmail: cfg.ConfirmAccounts, SignUpEmail: cfg.SignupEmailRegexp}, RequireTwoFactor: cfg.RequireTwoFactor})
	enableSSO(s.svc, cfg)
	apiServer := api.New(api.Options{Service: s.svc, BaseURL: cfg.BaseURL, TrustedProxies: cfg.TrustedProxies,
		MaxBody: cfg.MaxJSONBody, Version: Version, Log: log, ReadTimeout: cfg.Hardening.ReadTimeout})
	s.web = web.New(web.Options{Service: s.svc, BaseURL: cfg.BaseURL, TrustedProxies: cfg.TrustedProxies,
		DisableSignups: cfg.DisableSignups, DisableLogins: cfg.DisableLogins, Log: log, ReadTimeout: cfg.Hardening.ReadTimeout,
		Version: versionLine(), Settings: settingsInForce(cfg), Brand: webBrand(&cfg.Brand)})
	mux := httpx.NewMux()
	mux.Handle("/api/", apiServer.Handler())
	mux.Handle("/", s.web.Handler())
	mux.Handle("GET /help/api", apiServer.HelpHandler())
	mux.HandleFunc("GET /healthz", healthz)
	mux.HandleFunc("GET /up", healthz) // Password Pusher's health check, which its compose files probe
	mux.HandleFunc("GET /readyz", readyz(s.svc))
	// The legacy v1 JSON paths (/p.json, /p/<token>.json …) are taken before
	// the mux; every other path goes to it.
	s.http, s.conns = newHTTPServer(cfg, log, s.metrics, apiServer.Legacy(mux))
	return s, nil
}

// settingsInForce are the settings the admin overview shows (no secrets).
func settingsInForce(cfg *config.Config) []web.Setting {
	var out []web.Setting
	for _, s := range cfg.InForce() {
		out = append(out, web.Setting{Name: s.Name, Value: s.Value})
	}
	return out
}

// webBrand is the branding of the pages (docs/decisions.md, D45).
func webBrand(b *config.Brand) web.Brand {
	asset := func(a *config.BrandAsset) *web.Asset {
		if a == nil {
			return nil
		}
		return &web.Asset{URL: a.URL, Body: a.Body, Type: a.Type}
	}
	out := web.Brand{Title: b.Title, Tagline: b.Tagline, Disclaimer: b.Disclaimer, HideFooterMenu: !b.ShowFooterMenu,
		LightLogo: asset(b.LightLogo), DarkLogo: asset(b.DarkLogo), CustomCSS: asset(b.CustomCSS), Blur: b.Blur}
	for _, i := range b.Icons {
		out.Icons = append(out.Icons, web.Icon{Name: i.Name, Asset: asset(i.BrandAsset)})
	}
	return out
}

// close releases what newServer opened.
func (s *server) close() { s.store.Close() }

// run serves until ctx is cancelled, with the sweeper and the session
// clean-up beside it, then shuts down gracefully: requests in flight get
// the shutdown timeout to finish.
func (s *server) run(ctx context.Context) error {
	stopMetrics, err := serveMetrics(s.cfg, s.log, s.metrics)
	if err != nil {
		return err
	}
	defer stopMetrics()
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", s.cfg.Addr, err)
	}
	s.log.Info("listening", "addr", ln.Addr().String(), "data_dir", s.cfg.DataDir, "version", versionLine(),
		"max_conns", s.conns.max, "max_conns_per_client", s.conns.perClient)

	bgCtx, stopBackground := context.WithCancel(ctx)
	var background sync.WaitGroup
	background.Go(func() { s.web.RunCleanup(bgCtx, s.cfg.SweepInterval) })
	background.Go(func() { sweepLoop(bgCtx, s.svc, s.cfg, s.log, s.metrics) })
	background.Go(func() { s.svc.RunOutbox(bgCtx, outboxPoll) })
	background.Go(func() { watchKey(bgCtx, s.store, s.keys, s.log, keyWatchEvery) })
	defer func() {
		stopBackground()
		background.Wait()
	}()

	errc := make(chan error, 1)
	go func() { errc <- s.http.Serve(s.conns.listen(ln)) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	s.log.Info("shutting down")
	shutCtx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
	defer cancel()
	if err := s.http.Shutdown(shutCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	s.log.Info("stopped")
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
		if st, err := svc.Outbox(ctx); err == nil {
			met.Outbox(st.Pending, st.Failed)
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
