package web

import (
	"net/http"
	"strings"

	"hush/internal/push"
)

// signUpView is what sign_up.html shows again after an error.
type signUpView struct{ Email string }

// signUpForm serves GET /users/sign_up.
func (s *Server) signUpForm(w http.ResponseWriter, r *http.Request) {
	if s.DisableSignups {
		s.renderError(w, r, http.StatusForbidden, "Sign-ups are disabled", "New accounts cannot be created on this server.")
		return
	}
	if s.currentUser(r) != nil {
		redirect(w, r, "/dashboard")
		return
	}
	s.render(w, r, "sign_up.html", page{Title: "Sign up", Data: signUpView{}})
}

// signUpSubmit serves POST /users/sign_up: create the account and sign in.
func (s *Server) signUpSubmit(w http.ResponseWriter, r *http.Request) {
	if s.DisableSignups {
		s.renderError(w, r, http.StatusForbidden, "Sign-ups are disabled", "New accounts cannot be created on this server.")
		return
	}
	if err := parseForm(w, r); err != nil {
		s.renderError(w, r, http.StatusBadRequest, "Bad request", "The form could not be read.")
		return
	}
	email := strings.ToLower(strings.TrimSpace(r.PostForm.Get("email")))
	pw := r.PostForm.Get("password")
	again := func(msg string) {
		s.render(w, r, "sign_up.html", page{Title: "Sign up", Error: msg, Status: http.StatusUnprocessableEntity,
			Data: signUpView{Email: email}})
	}
	if !validEmail(email) {
		again("Please enter a valid email address.")
		return
	}
	if msg := newPasswordError(pw, r.PostForm.Get("password_confirmation")); msg != "" {
		again(msg)
		return
	}
	hash, err := s.Service.Argon.HashPassword(r.Context(), pw)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	u, err := s.Service.Store.CreateUser(r.Context(), email, hash, s.Service.Now().UTC())
	if push.ErrorCode(err) == push.CodeConflict {
		again("An account with this email address already exists.")
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if err := s.signIn(r, u); err != nil {
		s.fail(w, r, err)
		return
	}
	redirect(w, r, "/dashboard")
}
