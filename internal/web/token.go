package web

import (
	"net/http"

	"hush/internal/push"
)

// tokenView is what token.html shows. Token is set only in the response that
// created it: tokens are stored as digests and cannot be shown again
// (docs/decisions.md, D9).
type tokenView struct {
	Token string
	Email string
	Base  string // origin of the API, for the example
}

// tokenPage serves GET /users/token. A user without a token gets one here,
// shown once, as in Password Pusher.
func (s *Server) tokenPage(w http.ResponseWriter, r *http.Request) error {
	u := s.requireUser(w, r)
	if u == nil {
		return nil
	}
	has, err := s.svc.HasToken(r.Context(), u)
	if err != nil {
		return err
	}
	if has {
		s.render(w, r, "token.html", page{Title: "API token", User: u, Data: tokenView{Email: u.Email}})
		return nil
	}
	s.issueToken(w, r, u)
	return nil
}

// tokenRegenerate serves POST /users/token: a new token; the old one dies.
func (s *Server) tokenRegenerate(w http.ResponseWriter, r *http.Request) error {
	u := s.requireUser(w, r)
	if u == nil {
		return nil
	}
	s.issueToken(w, r, u)
	return nil
}

func (s *Server) issueToken(w http.ResponseWriter, r *http.Request, u *push.User) {
	tok, err := s.svc.ReplaceToken(r.Context(), u)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, "token.html", page{Title: "API token", User: u, Data: tokenView{Token: tok, Email: u.Email, Base: s.origin(r)}})
}
