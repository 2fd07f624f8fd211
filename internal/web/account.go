package web

import (
	"context"
	"net/http"
	"net/mail"
	"strings"
	"sync"
	"unicode/utf8"

	"hush/internal/push"
)

// Password rules of the sign-up and change-password forms.
const (
	minPassword = 8
	maxPassword = 256
)

// requireUser returns the signed-in user, or sends the visitor to sign in
// and returns nil.
func (s *Server) requireUser(w http.ResponseWriter, r *http.Request) *push.User {
	u := s.currentUser(r)
	if u == nil {
		redirect(w, r, "/users/sign_in")
	}
	return u
}

// checkPassword verifies a user's password (a malformed hash counts as wrong).
func (s *Server) checkPassword(ctx context.Context, u *push.User, password string) bool {
	ok, err := s.Service.Argon.VerifyPassword(ctx, password, u.PasswordHash)
	return err == nil && ok
}

var dummyHash struct {
	once sync.Once
	hash string
}

// wasteVerify spends the time a real password check takes, so that a
// sign-in for an unknown email cannot be told apart by its timing.
func (s *Server) wasteVerify(ctx context.Context, password string) {
	dummyHash.once.Do(func() { dummyHash.hash, _ = s.Service.Argon.HashPassword(ctx, "not the password") })
	s.Service.Argon.VerifyPassword(ctx, password, dummyHash.hash)
}

// validEmail accepts a plain address such as a@b.example.
func validEmail(email string) bool {
	if len(email) > 254 || strings.ContainsAny(email, " <>\"") {
		return false
	}
	a, err := mail.ParseAddress(email)
	return err == nil && a.Address == email && strings.Contains(email[strings.LastIndex(email, "@"):], ".")
}

// newPasswordError checks a new password and its confirmation.
func newPasswordError(pw, confirm string) string {
	n := utf8.RuneCountInString(pw)
	switch {
	case n < minPassword:
		return "The password must be at least 8 characters long."
	case n > maxPassword:
		return "The password must be at most 256 characters long."
	case pw != confirm:
		return "The password and its confirmation do not match."
	}
	return ""
}
