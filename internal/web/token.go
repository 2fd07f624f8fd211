package web

import (
	"net/http"
	"time"
)

// tokenView is what token.html shows. Token is set only in the response that
// created it: tokens are stored as digests and cannot be shown again
// (docs/decisions.md, D9).
type tokenView struct {
	Token    string
	Replaced bool      // the new token replaced one
	Created  time.Time // when the token there is was made; zero: none
	Email    string
	Base     string // origin of the API, for the example
}

// tokenPage serves GET /users/token: whether the user has a token, with
// "Create" or "Replace". Opening it never makes a token (docs/decisions.md,
// D43).
func (s *Server) tokenPage(w http.ResponseWriter, r *http.Request) error {
	u := s.requireUser(w, r)
	if u == nil {
		return nil
	}
	created, err := s.svc.TokenCreated(r.Context(), u)
	if err != nil {
		return err
	}
	s.render(w, r, "token.html", page{TitleKey: "token.title", User: u, Data: tokenView{Email: u.Email, Created: created}})
	return nil
}

// tokenCreate serves POST /users/token: a token for a user without one;
// replacing one asks for confirmation first (the old token dies).
func (s *Server) tokenCreate(w http.ResponseWriter, r *http.Request) error {
	u := s.requireUser(w, r)
	if u == nil {
		return nil
	}
	if err := parseForm(w, r); err != nil {
		return err
	}
	has, err := s.svc.HasToken(r.Context(), u)
	if err != nil {
		return err
	}
	if has && !s.confirmed(w, r, s.question(r, "token-replace"), "/users/token", false) {
		return nil
	}
	tok, err := s.svc.ReplaceToken(r.Context(), u)
	if err != nil {
		return err
	}
	s.render(w, r, "token.html", page{TitleKey: "token.title", User: u, NoSwitch: true,
		Data: tokenView{Token: tok, Replaced: has, Email: u.Email, Base: s.origin(r)}})
	return nil
}
