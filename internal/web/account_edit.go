package web

import (
	"net/http"
)

// accountView is what edit.html shows.
type accountView struct {
	Email  string
	Notice string
}

// accountForm serves GET /users/edit: change password, delete account.
func (s *Server) accountForm(w http.ResponseWriter, r *http.Request) {
	u := s.requireUser(w, r)
	if u == nil {
		return
	}
	s.render(w, r, "edit.html", page{Title: "Your account", User: u, Data: accountView{Email: u.Email}})
}

// changePassword serves POST /users/password.
func (s *Server) changePassword(w http.ResponseWriter, r *http.Request) {
	u := s.requireUser(w, r)
	if u == nil {
		return
	}
	if err := parseForm(w, r); err != nil {
		s.renderError(w, r, http.StatusBadRequest, "Bad request", "The form could not be read.")
		return
	}
	again := func(status int, msg, notice string) {
		s.render(w, r, "edit.html", page{Title: "Your account", User: u, Status: status, Error: msg,
			Data: accountView{Email: u.Email, Notice: notice}})
	}
	if !s.checkPassword(r.Context(), u, r.PostForm.Get("current_password")) {
		again(http.StatusUnauthorized, "The current password is not correct.", "")
		return
	}
	pw := r.PostForm.Get("password")
	if msg := newPasswordError(pw, r.PostForm.Get("password_confirmation")); msg != "" {
		again(http.StatusUnprocessableEntity, msg, "")
		return
	}
	hash, err := s.Service.Argon.HashPassword(r.Context(), pw)
	if err == nil {
		err = s.Service.Store.SetPassword(r.Context(), u.ID, hash, s.Service.Now().UTC())
	}
	if err == nil {
		err = s.sessions.RenewToken(r.Context())
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	again(http.StatusOK, "", "Your password has been changed.")
}

// deleteAccount serves POST /users/delete: the account, its tokens, pushes
// and their audit logs are deleted.
func (s *Server) deleteAccount(w http.ResponseWriter, r *http.Request) {
	u := s.requireUser(w, r)
	if u == nil {
		return
	}
	if err := parseForm(w, r); err != nil {
		s.renderError(w, r, http.StatusBadRequest, "Bad request", "The form could not be read.")
		return
	}
	if !s.checkPassword(r.Context(), u, r.PostForm.Get("current_password")) {
		s.render(w, r, "edit.html", page{Title: "Your account", User: u, Status: http.StatusUnauthorized,
			Error: "The password is not correct; the account was not deleted.", Data: accountView{Email: u.Email}})
		return
	}
	if err := s.Service.Store.DeleteUser(r.Context(), u.ID); err != nil {
		s.fail(w, r, err)
		return
	}
	if err := s.sessions.Destroy(r.Context()); err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, "message.html", page{Title: "Your account has been deleted",
		Data: "Your account, its API token and all of its pushes have been deleted."})
}
