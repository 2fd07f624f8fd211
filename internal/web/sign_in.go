package web

import (
	"errors"
	"net/http"

	"hush/internal/push"
)

// signInView is what sign_in.html shows again after an error.
type signInView struct{ Email string }

func (s *Server) loginsDisabled(w http.ResponseWriter, r *http.Request) bool {
	if s.disableLogins {
		s.renderError(w, r, http.StatusForbidden, "Sign-in is disabled",
			"Signing in on the web is disabled on this server. API tokens keep working.")
	}
	return s.disableLogins
}

// signInForm serves GET /users/sign_in.
func (s *Server) signInForm(w http.ResponseWriter, r *http.Request) error {
	if s.loginsDisabled(w, r) {
		return nil
	}
	if s.currentUser(r) != nil {
		redirect(w, r, "/dashboard")
		return nil
	}
	s.render(w, r, "sign_in.html", page{Title: "Sign in", Data: signInView{}})
	return nil
}

// signInSubmit serves POST /users/sign_in. Attempts are limited per client,
// per client and email, and per email (service.SignIn); the session token is
// renewed on success.
func (s *Server) signInSubmit(w http.ResponseWriter, r *http.Request) error {
	if s.loginsDisabled(w, r) {
		return nil
	}
	if err := parseForm(w, r); err != nil {
		return err
	}
	email := r.PostForm.Get("email")
	view := signInView{Email: email}
	u, err := s.svc.SignIn(r.Context(), email, r.PostForm.Get("password"), s.meta(r))
	var e *push.Error
	if errors.As(err, &e) && (e.Code == push.CodeTooMany || e.Code == push.CodeUnauthenticated) {
		status := http.StatusUnauthorized
		if e.Code == push.CodeTooMany {
			status = http.StatusTooManyRequests
		}
		s.render(w, r, "sign_in.html", page{Title: "Sign in", Status: status, RetryAfter: e.RetryAfter,
			Error: e.Message, Data: view})
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

// signOut serves POST /users/sign_out.
func (s *Server) signOut(w http.ResponseWriter, r *http.Request) error {
	if err := s.sessions.Destroy(r.Context()); err != nil {
		return err
	}
	redirect(w, r, "/")
	return nil
}
