package web

import (
	"errors"
	"net/http"

	"hush/internal/push"
)

// accountView is what edit.html shows.
type accountView struct {
	Email     string
	Notice    string
	TwoFactor bool // the second factor is on
}

// accountForm serves GET /users/edit: change password, delete account.
func (s *Server) accountForm(w http.ResponseWriter, r *http.Request) error {
	u := s.requireUser(w, r)
	if u == nil {
		return nil
	}
	s.render(w, r, "edit.html", page{Title: "Your account", User: u, Data: accountView{Email: u.Email, TwoFactor: u.HasTwoFactor()}})
	return nil
}

// accountError shows the account page again for an error a person can act
// on (a wrong current password, a rejected new one, too many attempts) and
// reports whether it did.
func (s *Server) accountError(w http.ResponseWriter, r *http.Request, u *push.User, err error, wrongPassword string) bool {
	var e *push.Error
	if errors.As(err, &e) && e.Fields["current_password"] != nil {
		err = &push.Error{Code: push.CodeUnauthenticated, Message: wrongPassword}
	}
	return s.formAgain(w, r, err, "edit.html", "Your account", accountView{Email: u.Email, TwoFactor: u.HasTwoFactor()})
}

// changePassword serves POST /users/password. Every other session of the
// account ends; this one carries on with a new token.
func (s *Server) changePassword(w http.ResponseWriter, r *http.Request) error {
	u := s.requireUser(w, r)
	if u == nil {
		return nil
	}
	if err := parseForm(w, r); err != nil {
		return err
	}
	f := r.PostForm
	changed, err := s.svc.ChangePassword(r.Context(), u, f.Get("current_password"), f.Get("password"),
		f.Get("password_confirmation"), s.meta(r))
	if s.accountError(w, r, u, err, "The current password is not correct.") {
		return nil
	}
	if err == nil {
		err = s.signIn(r, changed)
	}
	if err != nil {
		return err
	}
	s.render(w, r, "edit.html", page{Title: "Your account", User: changed,
		Data: accountView{Email: changed.Email, Notice: "Your password has been changed. Every other session of your account has been signed out."}})
	return nil
}

// deleteAccount serves POST /users/delete: the account, its tokens,
// sessions, pushes and their audit logs are deleted, once confirmed (the
// confirmation page asks for the password again).
func (s *Server) deleteAccount(w http.ResponseWriter, r *http.Request) error {
	u := s.requireUser(w, r)
	if u == nil {
		return nil
	}
	if err := parseForm(w, r); err != nil {
		return err
	}
	if !s.confirmed(w, r, questions["account-delete"], "/users/edit", true) {
		return nil
	}
	err := s.svc.DeleteAccount(r.Context(), u, r.PostForm.Get("current_password"), s.meta(r))
	if s.accountError(w, r, u, err, "The password is not correct; the account was not deleted.") {
		return nil
	}
	if err == nil {
		err = s.sessions.Destroy(r.Context())
	}
	if err != nil {
		return err
	}
	s.render(w, r, "message.html", page{Title: "Your account has been deleted",
		Data: "Your account, its API token and all of its pushes have been deleted."})
	return nil
}
