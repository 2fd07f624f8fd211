package web

import (
	"errors"
	"net/http"

	"hush/internal/push"
)

// signInView is what sign_in.html and sign_up.html show again after an error.
type signInView struct {
	Email string
	SSO   ssoView
}

func (s *Server) loginsDisabled(w http.ResponseWriter, r *http.Request) bool {
	if s.disableLogins {
		loc := s.localizer(r)
		s.renderError(w, r, http.StatusForbidden, loc.T("signin.disabled_title", nil), loc.T("signin.disabled_text", nil))
	}
	return s.disableLogins
}

// signInForm serves GET /users/sign_in.
func (s *Server) signInForm(w http.ResponseWriter, r *http.Request) error {
	return s.signForm(w, r, s.loginsDisabled, "sign_in.html", "signin.title")
}

// signInSubmit serves POST /users/sign_in. Attempts are limited per client,
// per client and email, and per email (service.SignIn); the session token is
// renewed on success. An account with a second factor goes on to the code
// step, half signed in (startCodeStep).
func (s *Server) signInSubmit(w http.ResponseWriter, r *http.Request) error {
	if s.loginsDisabled(w, r) || s.passwordClosed(w, r) {
		return nil
	}
	if err := parseForm(w, r); err != nil {
		return err
	}
	email := formValue(r, "email")
	u, err := s.svc.SignIn(r.Context(), email, formValue(r, "password"), s.meta(r))
	return s.signedIn(w, r, u, err, "sign_in.html", "signin.title", signInView{Email: email, SSO: s.ssoOf(r)})
}

// signForm serves the sign-in or sign-up form, with the title of the
// catalog key title, unless closed answers that it is off; a visitor
// already signed in goes to the dashboard.
func (s *Server) signForm(w http.ResponseWriter, r *http.Request, closed func(http.ResponseWriter, *http.Request) bool, tmpl, title string) error {
	switch {
	case closed(w, r):
	case s.currentUser(r) != nil:
		redirect(w, r, "/dashboard")
	default:
		s.render(w, r, tmpl, page{TitleKey: title, Data: signInView{SSO: s.ssoOf(r)}})
	}
	return nil
}

// signedIn ends a sign-in with a password (the sign-in form, sign-up, an
// address confirmation): the form again for an error a person can act on,
// else, for an account with a second factor, the code step, half signed in
// (startCodeStep), else the user bound to a renewed session and the
// dashboard.
func (s *Server) signedIn(w http.ResponseWriter, r *http.Request, u *push.User, err error, tmpl, title string, data any) error {
	if s.formAgain(w, r, err, tmpl, title, data) {
		return nil
	}
	if err == nil && u.HasTwoFactor() {
		// Not signed in yet: the code comes next.
		if err := s.startCodeStep(r, u); err != nil {
			return err
		}
		redirect(w, r, "/users/sign_in/two_factor")
		return nil
	}
	if err == nil {
		err = s.signIn(r, u)
	}
	if err != nil {
		return err
	}
	redirect(w, r, "/dashboard")
	return nil
}

// formStatus is the status a form answers with for an error its visitor
// can act on.
var formStatus = map[push.Code]int{
	push.CodeInvalid:         http.StatusUnprocessableEntity,
	push.CodeUnauthenticated: http.StatusUnauthorized,
	push.CodeTooMany:         http.StatusTooManyRequests,
	push.CodeForbidden:       http.StatusForbidden, // a disabled account's right password
}

// formAgain shows a form again, titled by the catalog key title, with
// err's message in the page's language, when err is one a person can act
// on (formStatus), and reports whether it did.
func (s *Server) formAgain(w http.ResponseWriter, r *http.Request, err error, tmpl, title string, data any) bool {
	var e *push.Error
	if !errors.As(err, &e) {
		return false
	}
	status, ok := formStatus[e.Code]
	if !ok {
		return false
	}
	msg := fieldMessage(err)
	if msg == "" {
		msg = e.Message
	}
	msg = s.sayIn(r, msg)
	field := firstInvalid(e.Fields, nil)
	if field == "" && e.Code == push.CodeUnauthenticated && tmpl == "sign_in.html" {
		field = "password" // a wrong email or password: the password is typed again
	}
	s.render(w, r, tmpl, page{TitleKey: title, Error: msg, Field: field, Status: status, RetryAfter: e.RetryAfter, Data: data})
	return true
}

// signOut serves POST /users/sign_out.
func (s *Server) signOut(w http.ResponseWriter, r *http.Request) error {
	if err := s.sessions.Destroy(r.Context()); err != nil {
		return err
	}
	redirect(w, r, "/")
	return nil
}
