package web

import (
	"errors"
	"net/http"

	"hush/internal/push"
)

// signUpView is what sign_up.html shows again after an error.
type signUpView struct{ Email string }

// signUpsClosed answers the sign-up pages when accounts cannot be created
// here: sign-ups are disabled, or sign-ins are (an account that cannot sign
// in must not come with a signed-in session either).
func (s *Server) signUpsClosed(w http.ResponseWriter, r *http.Request) bool {
	if s.disableSignups || s.disableLogins {
		s.renderError(w, r, http.StatusForbidden, "Sign-ups are disabled", "New accounts cannot be created on this server.")
		return true
	}
	return false
}

// signUpForm serves GET /users/sign_up.
func (s *Server) signUpForm(w http.ResponseWriter, r *http.Request) error {
	if s.signUpsClosed(w, r) {
		return nil
	}
	if s.currentUser(r) != nil {
		redirect(w, r, "/dashboard")
		return nil
	}
	s.render(w, r, "sign_up.html", page{Title: "Sign up", Data: signUpView{}})
	return nil
}

// signUpSubmit serves POST /users/sign_up: create the account and sign in.
func (s *Server) signUpSubmit(w http.ResponseWriter, r *http.Request) error {
	if s.signUpsClosed(w, r) {
		return nil
	}
	if err := parseForm(w, r); err != nil {
		return err
	}
	f := r.PostForm
	u, err := s.svc.SignUp(r.Context(), f.Get("email"), f.Get("password"), f.Get("password_confirmation"), s.meta(r))
	var e *push.Error
	if errors.As(err, &e) && (e.Code == push.CodeInvalid || e.Code == push.CodeTooMany) {
		status := http.StatusUnprocessableEntity
		if e.Code == push.CodeTooMany {
			status = http.StatusTooManyRequests
		}
		msg := fieldMessage(err)
		if msg == "" {
			msg = e.Message
		}
		s.render(w, r, "sign_up.html", page{Title: "Sign up", Error: msg, Status: status, RetryAfter: e.RetryAfter,
			Data: signUpView{Email: f.Get("email")}})
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
