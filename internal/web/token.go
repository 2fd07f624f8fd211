package web

import (
	"net/http"

	"hush/internal/push"
	"hush/internal/secure"
)

// tokenView is what token.html shows. Token is set only in the response that
// created it: tokens are stored as digests and cannot be shown again (D9).
type tokenView struct {
	Token string
	Email string
	Base  string // origin of the API, for the example
}

// tokenPage serves GET /users/token. A user without a token gets one here,
// shown once, as in the reference.
func (s *Server) tokenPage(w http.ResponseWriter, r *http.Request) {
	u := s.requireUser(w, r)
	if u == nil {
		return
	}
	has, err := s.Service.Store.HasToken(r.Context(), u.ID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if has {
		s.render(w, r, "token.html", page{Title: "API token", User: u, Data: tokenView{Email: u.Email}})
		return
	}
	s.issueToken(w, r, u)
}

// tokenRegenerate serves POST /users/token: a new token; the old one dies.
func (s *Server) tokenRegenerate(w http.ResponseWriter, r *http.Request) {
	u := s.requireUser(w, r)
	if u == nil {
		return
	}
	s.issueToken(w, r, u)
}

func (s *Server) issueToken(w http.ResponseWriter, r *http.Request, u *push.User) {
	tok, err := secure.NewToken(32)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if err := s.Service.Store.ReplaceToken(r.Context(), u.ID, secure.TokenDigest(tok), s.Service.Now().UTC()); err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, "token.html", page{Title: "API token", User: u, Data: tokenView{Token: tok, Email: u.Email, Base: s.origin(r)}})
}
