package web

import (
	"errors"
	"net/http"
	"time"

	"hush/internal/httpx"
	"hush/internal/i18n"
	"hush/internal/push"
	"hush/internal/service"
)

// Single sign-on (docs/decisions.md, D50 and D51). The browser leaves for
// the provider from GET /users/sso with a state, a nonce and a PKCE
// verifier kept in its own session, and comes back to GET
// /users/sso/callback, which spends them: a callback URL works once, only
// in the browser that started it, and only for service.SSOAttemptTimeout.

// Session keys of an attempt under way, and the mark of a session signed
// in through the provider.
const (
	keySSOState    = "sso_state"
	keySSONonce    = "sso_nonce"
	keySSOVerifier = "sso_verifier"
	keySSOStarted  = "sso_started" // Unix milliseconds of the service's clock
	keySSOLang     = "sso_lang"    // the language prefix it started under, "" for none (D67)
	keySSO         = "sso"         // signed in through the provider (D51)

	// An identity whose link waits for the account's password
	// (service.SSOSignInFirst), and when it was refused.
	keySSOLinkIssuer  = "sso_link_issuer"
	keySSOLinkSubject = "sso_link_subject"
	keySSOLinkEmail   = "sso_link_email"
	keySSOLinkStarted = "sso_link_started"
)

// ssoView is what sign_in.html shows of single sign-on.
type ssoView struct {
	Label    string // the button's text; "" without single sign-on
	Password bool   // the password form is offered
}

// ssoOf is the sign-in page's single sign-on part.
func (s *Server) ssoOf(r *http.Request) ssoView {
	v := ssoView{Password: s.svc.PasswordSignIn()}
	if rules, ok := s.svc.SSO(); ok {
		v.Label = rules.Label
		if v.Label == defaultSSOLabel {
			v.Label = s.localizer(r).T("signin.sso", nil)
		}
	}
	return v
}

// passwordClosed refuses a password route (sign-in, its code step,
// sign-up, reset) while password sign-in is off, and reports whether it did.
func (s *Server) passwordClosed(w http.ResponseWriter, r *http.Request) bool {
	if s.svc.PasswordSignIn() {
		return false
	}
	s.renderError(w, r, http.StatusForbidden, s.localizer(r).T("signin.password_off_title", nil), s.sayIn(r, service.MsgPasswordOff))
	return true
}

// ssoClosed answers the single sign-on routes where there are none.
func (s *Server) ssoClosed(w http.ResponseWriter, r *http.Request) bool {
	if s.loginsDisabled(w, r) {
		return true
	}
	if _, ok := s.svc.SSO(); !ok {
		s.notFound(w, r)
		return true
	}
	return false
}

// ssoStart serves GET /users/sso: a fresh attempt in this browser's
// session, and the way to the provider. A link, not a form, starts it: the
// pages' CSP lets forms post only here, and that would stop the redirect.
func (s *Server) ssoStart(w http.ResponseWriter, r *http.Request) error {
	if s.ssoClosed(w, r) {
		return nil
	}
	if s.currentUser(r) != nil {
		redirect(w, r, "/dashboard")
		return nil
	}
	a, to, err := s.svc.StartSSO(r.Context())
	if err != nil {
		return s.ssoRefused(w, r, err)
	}
	ctx := r.Context()
	s.sessions.Put(ctx, keySSOState, a.State)
	s.sessions.Put(ctx, keySSONonce, a.Nonce)
	s.sessions.Put(ctx, keySSOVerifier, a.Verifier)
	s.sessions.Put(ctx, keySSOStarted, a.Started.UnixMilli())
	s.sessions.Put(ctx, keySSOLang, pathLang(r))
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, to, http.StatusSeeOther)
	return nil
}

// ssoAttempt takes this browser's attempt out of its session: it is spent
// whatever the callback brings.
func (s *Server) ssoAttempt(r *http.Request) service.SSOAttempt {
	ctx := r.Context()
	a := service.SSOAttempt{
		State:    s.sessions.PopString(ctx, keySSOState),
		Nonce:    s.sessions.PopString(ctx, keySSONonce),
		Verifier: s.sessions.PopString(ctx, keySSOVerifier),
	}
	if ms := s.sessions.GetInt64(ctx, keySSOStarted); ms != 0 {
		a.Started = time.UnixMilli(ms).UTC()
	}
	s.sessions.Remove(ctx, keySSOStarted)
	return a
}

// ssoLang is r in the language its attempt started under: the callback's
// address is the one registered at the provider, without a prefix, so the
// attempt carries the prefix of the sign-in page through the round trip
// (docs/decisions.md, D67). Spent with the attempt.
func (s *Server) ssoLang(r *http.Request) *http.Request {
	code := s.sessions.PopString(r.Context(), keySSOLang)
	l, ok := i18n.Lookup(code)
	if !ok || pathLang(r) != "" {
		return r
	}
	return withLang(r, l.Code)
}

// ssoCallback serves GET /users/sso/callback: the provider's answer. The
// identity's account is bound to a renewed session without Hush's own
// second factor: the provider authenticated the person (D51).
func (s *Server) ssoCallback(w http.ResponseWriter, r *http.Request) error {
	if s.ssoClosed(w, r) {
		return nil
	}
	w.Header().Set("Cache-Control", "no-store")
	r = s.ssoLang(r)
	a := s.ssoAttempt(r)
	q := r.URL.Query()
	if httpx.Last(q, "error") != "" {
		// Refused at the provider (or the person cancelled there).
		return s.ssoRefused(w, r, &push.Error{Code: push.CodeUnauthenticated, Message: service.MsgSSOFailed})
	}
	u, err := s.svc.FinishSSO(r.Context(), a, httpx.Last(q, "state"), httpx.Last(q, "code"))
	var first *service.SSOSignInFirst
	if errors.As(err, &first) {
		// Kept in this browser's session only: the password sign-in that
		// follows here makes the link (linkWaiting).
		ctx := r.Context()
		s.sessions.Put(ctx, keySSOLinkIssuer, first.Link.Issuer)
		s.sessions.Put(ctx, keySSOLinkSubject, first.Link.Subject)
		s.sessions.Put(ctx, keySSOLinkEmail, first.Link.Email)
		s.sessions.Put(ctx, keySSOLinkStarted, first.Started.UnixMilli())
	}
	if err != nil {
		return s.ssoRefused(w, r, err)
	}
	if err := s.signIn(r, u); err != nil {
		return err
	}
	s.sessions.Put(r.Context(), keySSO, true)
	redirect(w, r, "/dashboard")
	return nil
}

// linkWaiting makes the link an SSOSignInFirst refusal left in this
// session, now that u has signed in here; the wait ends either way.
func (s *Server) linkWaiting(r *http.Request, u *push.User) {
	ctx := r.Context()
	link := service.Identity{
		Issuer:  s.sessions.PopString(ctx, keySSOLinkIssuer),
		Subject: s.sessions.PopString(ctx, keySSOLinkSubject),
		Email:   s.sessions.PopString(ctx, keySSOLinkEmail),
	}
	ms := s.sessions.GetInt64(ctx, keySSOLinkStarted)
	s.sessions.Remove(ctx, keySSOLinkStarted)
	if link.Subject != "" {
		s.svc.LinkAfterSignIn(ctx, u, link, time.UnixMilli(ms).UTC())
	}
}

// ssoRefused shows the sign-in page with the refusal's message; its
// language switch leads to the sign-in page, since the callback's address
// is spent and the start's would leave for the provider again.
func (s *Server) ssoRefused(w http.ResponseWriter, r *http.Request, err error) error {
	r = switchTo(r, "/users/sign_in")
	if s.formAgain(w, r, err, "sign_in.html", "signin.title", signInView{SSO: s.ssoOf(r)}) {
		return nil
	}
	if push.ErrorCode(err) == push.CodeUnavailable {
		s.render(w, r, "sign_in.html", page{TitleKey: "signin.title", Error: s.sayIn(r, service.MsgSSOFailed), Status: http.StatusBadGateway,
			Data: signInView{SSO: s.ssoOf(r)}})
		return nil
	}
	return err
}

// ssoSession reports whether the session signed in through the provider.
func (s *Server) ssoSession(r *http.Request) bool { return s.sessions.GetBool(r.Context(), keySSO) }

// mustEnrol is service.MustEnrol for this request's session: a session
// signed in through the provider never has to set up Hush's second factor
// (D51).
func (s *Server) mustEnrol(r *http.Request, u *push.User) bool {
	return s.svc.MustEnrol(u) && !s.ssoSession(r)
}
