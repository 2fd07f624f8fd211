package web

import (
	"net/http"
	"strings"
)

// signInView is what sign_in.html shows again after an error.
type signInView struct{ Email string }

func (s *Server) loginsDisabled(w http.ResponseWriter, r *http.Request) bool {
	if s.DisableLogins {
		s.renderError(w, r, http.StatusForbidden, "Sign-in is disabled",
			"Signing in on the web is disabled on this server. API tokens keep working.")
	}
	return s.DisableLogins
}

// signInForm serves GET /users/sign_in.
func (s *Server) signInForm(w http.ResponseWriter, r *http.Request) {
	if s.loginsDisabled(w, r) {
		return
	}
	if s.currentUser(r) != nil {
		redirect(w, r, "/dashboard")
		return
	}
	s.render(w, r, "sign_in.html", page{Title: "Sign in", Data: signInView{}})
}

// signInSubmit serves POST /users/sign_in. Attempts are limited per client
// IP and per email address; the session token is renewed on success.
func (s *Server) signInSubmit(w http.ResponseWriter, r *http.Request) {
	if s.loginsDisabled(w, r) {
		return
	}
	if err := parseForm(w, r); err != nil {
		s.renderError(w, r, http.StatusBadRequest, "Bad request", "The form could not be read.")
		return
	}
	email := strings.ToLower(strings.TrimSpace(r.PostForm.Get("email")))
	pw := r.PostForm.Get("password")
	view := signInView{Email: email}
	wait, err := s.Service.AllowSignIn(r.Context(), s.clientIP(r), email)
	if err != nil {
		s.Log.ErrorContext(r.Context(), "sign-in limit", "err", err)
		s.renderError(w, r, http.StatusInternalServerError, "Something went wrong", "Please try again.")
		return
	}
	if wait > 0 {
		s.render(w, r, "sign_in.html", page{Title: "Sign in", Status: http.StatusTooManyRequests, RetryAfter: wait,
			Error: "Too many sign-in attempts. Please wait a minute and try again.", Data: view})
		return
	}
	u, err := s.Service.Store.UserByEmail(r.Context(), email)
	if err != nil {
		s.wasteVerify(r.Context(), pw)
	}
	if err != nil || !s.checkPassword(r.Context(), u, pw) {
		s.render(w, r, "sign_in.html", page{Title: "Sign in", Status: http.StatusUnauthorized,
			Error: "Invalid email or password.", Data: view})
		return
	}
	if err := s.signIn(r, u); err != nil {
		s.fail(w, r, err)
		return
	}
	redirect(w, r, "/dashboard")
}

// signOut serves POST /users/sign_out.
func (s *Server) signOut(w http.ResponseWriter, r *http.Request) {
	if err := s.sessions.Destroy(r.Context()); err != nil {
		s.fail(w, r, err)
		return
	}
	redirect(w, r, "/")
}
