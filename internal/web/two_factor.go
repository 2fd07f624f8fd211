package web

import (
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"time"

	"hush/internal/i18n"
	"hush/internal/push"
	"hush/internal/service"
)

// The second factor's pages: setting it up (a QR code and the secret as
// text, confirmed with the password and a code, then the recovery codes,
// shown once), turning it off (password and code), and the code step of
// sign-in. They serve the session's account even when it must set up its
// second factor before anything else (sessionUser, not currentUser).

// twoFactorView is what two_factor.html shows.
type twoFactorView struct {
	On           bool
	Since        time.Time
	RecoveryLeft int
	Required     bool               // the instance requires a second factor
	Enrolment    *service.Enrolment // a set-up under way: its secret
	QR           template.HTML      // the set-up's otpauth:// URL as a QR code
	Codes        []string           // the recovery codes, in the one response that shows them
}

const twoFactorTitle = "twofactor.title" // the pages' title, a catalog key

// issuer names this instance in authenticator apps: Hush and its host.
func (s *Server) issuer(r *http.Request) string {
	if u, err := url.Parse(s.origin(r)); err == nil && u.Host != "" {
		return "Hush (" + u.Host + ")"
	}
	return "Hush"
}

// twoFactorView loads what the page shows of u.
func (s *Server) twoFactorView(r *http.Request, u *push.User) (twoFactorView, error) {
	v := twoFactorView{On: u.HasTwoFactor(), Since: u.TwoFactorAt, Required: s.svc.RequireTwoFactor()}
	var err error
	if v.On {
		v.RecoveryLeft, err = s.svc.RecoveryCodesLeft(r.Context(), u)
		return v, err
	}
	e, err := s.svc.PendingEnrolment(r.Context(), u, s.issuer(r))
	if err != nil || e == nil {
		return v, err
	}
	return v, v.show(s.localizer(r), e)
}

// show puts an enrolment on the page.
func (v *twoFactorView) show(loc *i18n.Localizer, e *service.Enrolment) error {
	qr, err := qrSVG(e.URL, loc.T("twofactor.qr_label", nil))
	if err != nil {
		return err
	}
	v.Enrolment, v.QR = e, qr
	return nil
}

// twoFactorUser is the session's account for these pages, or nil after
// sending the visitor to sign in.
func (s *Server) twoFactorUser(w http.ResponseWriter, r *http.Request) *push.User {
	u := s.sessionUser(r)
	if u == nil {
		redirect(w, r, "/users/sign_in")
	}
	return u
}

// twoFactorPage serves GET /users/two_factor.
func (s *Server) twoFactorPage(w http.ResponseWriter, r *http.Request) error {
	u := s.twoFactorUser(w, r)
	if u == nil {
		return nil
	}
	v, err := s.twoFactorView(r, u)
	if err != nil {
		return err
	}
	s.renderTwoFactor(w, r, u, v, "", http.StatusOK)
	return nil
}

func (s *Server) renderTwoFactor(w http.ResponseWriter, r *http.Request, u *push.User, v twoFactorView, msg string, status int) {
	p := page{TitleKey: twoFactorTitle, Data: v, Error: msg, Status: status}
	if !s.svc.MustEnrol(u) {
		p.User = u
	}
	s.render(w, r, "two_factor.html", p)
}

// twoFactorSetup serves POST /users/two_factor/setup: a new secret,
// replacing any set-up under way.
func (s *Server) twoFactorSetup(w http.ResponseWriter, r *http.Request) error {
	u := s.twoFactorUser(w, r)
	if u == nil {
		return nil
	}
	if err := parseForm(w, r); err != nil {
		return err
	}
	if u.HasTwoFactor() {
		redirect(w, r, "/users/two_factor")
		return nil
	}
	e, err := s.svc.BeginEnrolment(r.Context(), u, s.issuer(r))
	if err != nil {
		return err
	}
	v := twoFactorView{Required: s.svc.RequireTwoFactor()}
	if err := v.show(s.localizer(r), e); err != nil {
		return err
	}
	s.renderTwoFactor(w, r, u, v, "", http.StatusOK)
	return nil
}

// twoFactorEnable serves POST /users/two_factor/enable: the password and a
// code of the set-up's secret turn the second factor on; the recovery codes
// are shown, once. Every other session of the account ends; this one
// carries on under the account's new auth epoch.
func (s *Server) twoFactorEnable(w http.ResponseWriter, r *http.Request) error {
	u := s.twoFactorUser(w, r)
	if u == nil {
		return nil
	}
	if err := parseForm(w, r); err != nil {
		return err
	}
	changed, codes, err := s.svc.ConfirmEnrolment(r.Context(), u, formValue(r, "current_password"), formValue(r, "code"), s.meta(r))
	if err != nil {
		return s.twoFactorAgain(w, r, u, err)
	}
	if err := s.signIn(r, changed); err != nil {
		return err
	}
	s.render(w, r, "two_factor_codes.html", page{TitleKey: "twofactor.codes_page_title", User: changed, NoSwitch: true, Data: twoFactorView{On: true, Codes: codes}})
	return nil
}

// twoFactorDisable serves POST /users/two_factor/disable: the password and
// a code (or a recovery code) turn the second factor off.
func (s *Server) twoFactorDisable(w http.ResponseWriter, r *http.Request) error {
	u := s.twoFactorUser(w, r)
	if u == nil {
		return nil
	}
	if err := parseForm(w, r); err != nil {
		return err
	}
	if err := s.svc.DisableTwoFactor(r.Context(), u, formValue(r, "current_password"), formValue(r, "code"), s.meta(r)); err != nil {
		return s.twoFactorAgain(w, r, u, err)
	}
	s.flash(r, s.localizer(r).T("twofactor.turned_off", nil))
	redirect(w, r, "/users/two_factor")
	return nil
}

// twoFactorAgain shows the page again with what went wrong, for an error a
// person can act on; other errors are returned.
func (s *Server) twoFactorAgain(w http.ResponseWriter, r *http.Request, u *push.User, err error) error {
	var e *push.Error
	if !errors.As(err, &e) {
		return err
	}
	status, ok := formStatus[e.Code]
	if e.Code == push.CodeConflict {
		status, ok = http.StatusConflict, true
	}
	if !ok {
		return err
	}
	msg := e.Message
	switch {
	case e.Fields["current_password"] != nil:
		msg, status = s.localizer(r).T("twofactor.wrong_password", nil), http.StatusUnauthorized
	case fieldMessage(err) != "":
		msg = s.sayIn(r, fieldMessage(err))
	default:
		msg = s.sayIn(r, msg)
	}
	// Reloaded: a set-up that no longer holds is not shown again.
	if fresh, lerr := s.svc.SessionUser(r.Context(), u.ID, u.AuthEpoch); lerr == nil && fresh != nil {
		u = fresh
	}
	v, verr := s.twoFactorView(r, u)
	if verr != nil {
		return verr
	}
	s.renderTwoFactor(w, r, u, v, msg, status)
	return nil
}

// codeView is what sign_in_code.html shows.
type codeView struct{ Minutes int }

// signInCodeForm serves GET /users/sign_in/two_factor: the code step of a
// sign-in whose password was right.
func (s *Server) signInCodeForm(w http.ResponseWriter, r *http.Request) error {
	if s.loginsDisabled(w, r) || s.passwordClosed(w, r) {
		return nil
	}
	if _, ok := s.codeStep(r); !ok {
		redirect(w, r, "/users/sign_in")
		return nil
	}
	s.render(w, r, "sign_in_code.html", page{TitleKey: twoFactorTitle, Data: codeView{Minutes: int(service.SignInCodeTimeout / time.Minute)}})
	return nil
}

// signInCodeSubmit serves POST /users/sign_in/two_factor: a right code
// signs the account in (the session token is renewed again); a recovery
// code too, and then the page of the second factor says how many are left.
func (s *Server) signInCodeSubmit(w http.ResponseWriter, r *http.Request) error {
	if s.loginsDisabled(w, r) || s.passwordClosed(w, r) {
		return nil
	}
	if err := parseForm(w, r); err != nil {
		return err
	}
	p, ok := s.codeStep(r)
	if !ok {
		redirect(w, r, "/users/sign_in")
		return nil
	}
	u, recovery, err := s.svc.FinishSignIn(r.Context(), p, formValue(r, "code"), s.meta(r))
	if push.ErrorCode(err) == push.CodeUnauthenticated {
		s.endCodeStep(r)
		// The step is over: its form's page would send the switch's links
		// on to sign in.
		s.render(w, switchTo(r, "/users/sign_in"), "sign_in.html", page{TitleKey: "signin.title",
			Error: s.sayIn(r, service.MsgSignInExpired), Status: http.StatusUnauthorized, Data: signInView{SSO: s.ssoOf(r)}})
		return nil
	}
	if s.formAgain(w, r, err, "sign_in_code.html", twoFactorTitle, codeView{Minutes: int(service.SignInCodeTimeout / time.Minute)}) {
		return nil
	}
	if err == nil {
		err = s.signIn(r, u)
	}
	if err != nil {
		return err
	}
	if recovery {
		left, err := s.svc.RecoveryCodesLeft(r.Context(), u)
		if err != nil {
			return err
		}
		s.flash(r, s.localizer(r).N("twofactor.recovery_used", left, nil))
		redirect(w, r, "/users/two_factor")
		return nil
	}
	redirect(w, r, "/dashboard")
	return nil
}
