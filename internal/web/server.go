// Package web serves the HTML pages of Hush: the recipient's pages of a
// secret link, the create form, accounts, the dashboard and audit logs. It
// authenticates by session cookie (never the API's tokens) and guards every
// state change with http.CrossOriginProtection.
package web

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/alexedwards/scs/v2"

	"hush/internal/httpx"
	"hush/internal/push"
	"hush/internal/service"
)

// Server serves the pages. Build it with New.
type Server struct {
	svc            *service.Service
	baseURL        string // fixed origin for secret URLs; "" = from the request
	trusted        []netip.Prefix
	disableSignups bool
	disableLogins  bool
	version        string    // shown to admins
	inForce        []Setting // the settings in force, shown to admins
	log            *slog.Logger
	readTimeout    time.Duration           // the server's read timeout, which uploads must keep pace with
	brand          brandView               // what the layout shows of the brand (brand.go)
	assets         map[string]*servedAsset // the brand files served under /static/brand/
	csp            string                  // the pages' CSP: CSP, with the brand images' origins
	blur           map[push.Kind]bool      // kinds whose payload is blurred until shown

	sessions *scs.SessionManager
	pages    map[string]func() templates // by language code, each parsed at its first use (pageSets)
}

// Options configure New.
type Options struct {
	Service        *service.Service
	BaseURL        string
	TrustedProxies []netip.Prefix
	DisableSignups bool
	DisableLogins  bool
	Version        string        // the application version, shown on the admin overview
	Settings       []Setting     // the settings in force, without secrets, shown on the admin overview
	Log            *slog.Logger  // nil: discard
	ReadTimeout    time.Duration // the server's read timeout; 0: 60 s
	Brand          Brand         // the operator's branding; zero: Hush's own
}

// Session lifetimes: a session ends after two idle hours (Password Pusher's
// login_session_timeout) and at the latest after a day.
const (
	sessionIdle     = 2 * time.Hour
	sessionLifetime = 24 * time.Hour
)

// New builds the web server and its session manager.
func New(o Options) *Server {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	s := &Server{
		svc:            o.Service,
		baseURL:        o.BaseURL,
		trusted:        o.TrustedProxies,
		disableSignups: o.DisableSignups,
		disableLogins:  o.DisableLogins,
		version:        o.Version,
		inForce:        o.Settings,
		log:            o.Log,
		readTimeout:    o.ReadTimeout,
		pages:          pageSets(),
	}
	if s.readTimeout <= 0 {
		s.readTimeout = 60 * time.Second
	}
	s.setBrand(o.Brand)
	sm := scs.New()
	sm.Store = sessionStore{s.svc}
	sm.IdleTimeout = sessionIdle
	sm.Lifetime = sessionLifetime
	sm.Cookie.Name = "hush_session"
	sm.Cookie.HttpOnly = true
	sm.Cookie.SameSite = http.SameSiteLaxMode
	sm.Cookie.Secure = strings.HasPrefix(o.BaseURL, "https://")
	sm.Cookie.Path = "/"
	sm.ErrorFunc = func(w http.ResponseWriter, r *http.Request, err error) { s.fail(w, r, err) }
	s.sessions = sm
	return s
}

// Handler returns every page route. Mount it for all paths outside /api/.
func (s *Server) Handler() http.Handler {
	mux := httpx.NewMux()
	mux.Handle("GET /static/", staticHandler())
	mux.HandleFunc("GET "+brandPath+"{name}", s.brandFile)

	// Each form's POST names the page the form is on (form), where the
	// language switch of the pages that answer it leads.

	// Recipient side.
	mux.Handle("GET /p/{token}/r", s.handle(s.retrievalStep))
	mux.Handle("POST /p/{token}/r", s.form("/p/{token}/r", s.revealSubmit))
	mux.Handle("GET /p/{token}", s.handle(s.show))
	mux.Handle("GET /p/{token}/passphrase", s.handle(s.passphraseForm))
	mux.Handle("POST /p/{token}/passphrase", s.form("/p/{token}/passphrase", s.passphraseSubmit))
	mux.Handle("POST /p/{token}/expire", s.form("/", s.expire))

	// Creator side.
	mux.Handle("GET /{$}", s.handle(s.createForm))
	mux.Handle("POST /{$}", s.form("/", s.createSubmit))
	mux.Handle("GET /p/{token}/preview", s.handle(s.preview))
	mux.Handle("GET /p/{token}/audit", s.handle(s.audit))
	mux.Handle("GET /dashboard", s.handle(s.dashboard))

	// Accounts.
	mux.Handle("GET /users/sign_up", s.handle(s.signUpForm))
	mux.Handle("POST /users/sign_up", s.form("/users/sign_up", s.signUpSubmit))
	mux.Handle("GET /users/sign_in", s.handle(s.signInForm))
	mux.Handle("POST /users/sign_in", s.form("/users/sign_in", s.signInSubmit))
	mux.Handle("POST /users/sign_out", s.form("/", s.signOut))
	mux.Handle("GET /users/sso", s.handle(s.ssoStart))
	mux.Handle("GET /users/sso/callback", s.handle(s.ssoCallback))
	mux.Handle("GET /users/token", s.handle(s.tokenPage))
	mux.Handle("POST /users/token", s.form("/users/token", s.tokenCreate))
	mux.Handle("GET /users/edit", s.handle(s.accountForm))
	mux.Handle("POST /users/password", s.form("/users/edit", s.changePassword))
	mux.Handle("POST /users/delete", s.form("/users/edit", s.deleteAccount))
	mux.Handle("GET /api_tokens", s.handle(s.apiTokens))
	mux.Handle("GET /users/password/new", s.handle(s.resetForm))
	mux.Handle("POST /users/password/new", s.form("/users/password/new", s.resetRequest))
	mux.Handle("GET /users/password/edit", s.handle(s.resetEditForm))
	mux.Handle("POST /users/password/edit", s.form("/users/password/new", s.resetSubmit))
	mux.Handle("GET /users/confirmation", s.handle(s.confirmPage))
	mux.Handle("POST /users/confirmation", s.form("/users/confirmation/new", s.confirm))
	mux.Handle("GET /users/confirmation/new", s.handle(s.confirmForm))
	mux.Handle("POST /users/confirmation/new", s.form("/users/confirmation/new", s.confirmRequest))
	mux.Handle("POST /users/receipts", s.form("/users/edit", s.receiptsDefault))
	mux.Handle("POST /users/language", s.form("/users/edit", s.setLanguage))

	// The second factor.
	mux.Handle("GET /users/two_factor", s.handle(s.twoFactorPage))
	mux.Handle("POST /users/two_factor/setup", s.form("/users/two_factor", s.twoFactorSetup))
	mux.Handle("POST /users/two_factor/enable", s.form("/users/two_factor", s.twoFactorEnable))
	mux.Handle("POST /users/two_factor/disable", s.form("/users/two_factor", s.twoFactorDisable))
	mux.Handle("GET /users/sign_in/two_factor", s.handle(s.signInCodeForm))
	mux.Handle("POST /users/sign_in/two_factor", s.form("/users/sign_in/two_factor", s.signInCodeSubmit))

	// Administration.
	mux.Handle("GET /admin", s.handle(s.adminOverview))
	mux.Handle("GET /admin/users", s.handle(s.adminUsers))
	mux.Handle("GET /admin/users/{id}", s.handle(s.adminUser))
	mux.Handle("POST /admin/users/{id}/{action}", s.form("/admin/users/{id}", s.adminAct))
	mux.Handle("GET /admin/log", s.handle(s.adminLog))

	// Webhooks (webhooks.go): an account's, and the instance's.
	for _, sc := range []hookScope{accountHooks, adminHooks} {
		mux.Handle("GET "+sc.Base, s.handle(inScope((*Server).webhooksPage, s, sc)))
		mux.Handle("POST "+sc.Base, s.form(sc.Base, inScope((*Server).webhookCreate, s, sc)))
		mux.Handle("GET "+sc.Base+"/{id}", s.handle(inScope((*Server).webhookPage, s, sc)))
		mux.Handle("POST "+sc.Base+"/{id}/{action}", s.form(sc.Base+"/{id}", inScope((*Server).webhookAct, s, sc)))
	}

	mux.Handle("/", s.handle(s.fallback))

	csrf := http.NewCrossOriginProtection()
	if s.baseURL != "" {
		// Behind a proxy that rewrites Host, the public origin still counts.
		_ = csrf.AddTrustedOrigin(s.baseURL)
	}
	csrf.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.renderError(w, r, http.StatusForbidden, "message.refused.title", "message.refused.text")
	}))
	return securityHeaders(s.csp, withLangPrefix(s.sessions.LoadAndSave(withUserCache(csrf.Handler(s.enrolFirst(mux))))))
}

// enrolFirst sends an account that must set up its second factor (the
// instance requires one and it has none) to do that before anything else:
// every page but the second factor's, signing out, the static files and the
// recipient's pages of a secret link (where it counts as a visitor, as
// currentUser has it) redirects there.
func (s *Server) enrolFirst(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.svc.RequireTwoFactor() && !mayWhileEnrolling(r.URL.Path) && s.mustEnrol(r, s.sessionUser(r)) {
			redirect(w, r, "/users/two_factor")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// mayWhileEnrolling reports whether path is open to an account that must
// set up its second factor first.
func mayWhileEnrolling(path string) bool {
	return path == "/users/two_factor" || strings.HasPrefix(path, "/users/two_factor/") || path == "/users/sign_out" ||
		strings.HasPrefix(path, "/static/") || strings.HasPrefix(path, "/p/")
}

// CSP is the Content-Security-Policy of every page: scripts, styles and
// images only from this origin, nothing inline, never framed, and forms
// that post only here. Logos and icons on other hosts add their origins,
// and only those, to img-src (Server.csp).
const CSP = "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

// securityHeaders refines the edge's baseline headers (httpx.Baseline) for
// pages: their CSP, and caching for static assets only.
func securityHeaders(csp string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		if strings.HasPrefix(r.URL.Path, "/static/") {
			h.Set("Cache-Control", "public, max-age=3600")
		}
		next.ServeHTTP(w, r)
	})
}

// handle adapts a page handler that returns an error: the error becomes a
// page (fail), the one place where codes meet statuses.
func (s *Server) handle(fn func(http.ResponseWriter, *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := fn(w, r); err != nil {
			s.fail(w, r, err)
		}
	})
}

// RunCleanup deletes expired sessions every interval until ctx ends.
func (s *Server) RunCleanup(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if n, err := s.svc.DeleteExpiredSessions(ctx); err != nil && ctx.Err() == nil {
			s.log.Error("session cleanup failed", "err", err)
		} else if n > 0 {
			s.log.Debug("deleted expired sessions", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
